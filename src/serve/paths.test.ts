// Which environment a path names: the `/<name>/...` prefix, and the root of a one-environment server.
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import type { CatalogEntry } from "./catalog.js";
import { EntryPaths, requestPath } from "./paths.js";

/** TEST DOUBLE: an entry with only its name (the paths read nothing else). */
const entry = (name: string) => ({ name }) as CatalogEntry;
const [maze, vault] = [entry("maze"), entry("vault")];
const names = (r: { entry: CatalogEntry; rest?: string[]; kind?: string } | undefined) =>
  r === undefined ? undefined : { ...r, entry: r.entry.name };

describe("requestPath", () => {
  it("drops empty segments and keeps the query", () => {
    const { url, parts } = requestPath({ url: "/maze//mcp/?seed=4" } as IncomingMessage)!;
    expect([parts, url.pathname, url.searchParams.get("seed")]).toEqual([
      ["maze", "mcp"],
      "/maze//mcp/",
      "4",
    ]);
    expect(requestPath({} as IncomingMessage)?.parts).toEqual([]);
  });

  it("is null for a request target that is not a URL (node:http lets `//[` through)", () => {
    expect(
      ["//[", "//a:b", "//:99999"].map((url) => requestPath({ url } as IncomingMessage)),
    ).toEqual([null, null, null]);
  });
});

describe("EntryPaths", () => {
  const two = new EntryPaths([maze, vault]);
  const one = new EntryPaths([maze]);

  it("routes /<name>/<route> to the entry; the root only on a one-environment server", () => {
    expect(names(two.route(["vault", "reset"]))).toEqual({ entry: "vault", rest: ["reset"] });
    expect(names(two.route(["maze"]))).toEqual({ entry: "maze", rest: [] });
    expect(names(two.route(["reset"]))).toBeUndefined();
    expect(names(two.route([]))).toBeUndefined();
    expect(names(one.route(["reset"]))).toEqual({ entry: "maze", rest: ["reset"] });
    expect(names(one.route(["maze", "step"]))).toEqual({ entry: "maze", rest: ["step"] });
    expect(names(one.route(["a", "step"]))).toBeUndefined();
  });

  it("serves sockets at /<name>/ws and /<name>/mcp, and at /ws, /mcp with one environment", () => {
    expect(names(two.socket(["vault", "ws"]))).toEqual({ entry: "vault", kind: "ws" });
    expect(names(two.socket(["maze", "mcp"]))).toEqual({ entry: "maze", kind: "mcp" });
    expect(names(two.socket(["maze", "reset"]))).toBeUndefined();
    expect(names(two.socket(["ws"]))).toBeUndefined();
    expect(names(two.socket(["nope", "ws"]))).toBeUndefined();
    expect(names(one.socket(["mcp"]))).toEqual({ entry: "maze", kind: "mcp" });
    expect(names(one.socket(["maze", "ws", "x"]))).toBeUndefined();
  });
});
