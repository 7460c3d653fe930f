/**
 * @module serve/paths
 * The URL layout of `spade serve`: every environment under its own prefix (`/<name>/reset`,
 * `/<name>/ws`, ...), and a server of one environment also at the root, where OpenEnv clients look.
 */
import type { IncomingMessage } from "node:http";
import type { CatalogEntry } from "./catalog.js";

/**
 * A request's URL and its path segments (empty ones dropped); null when the request target is
 * not a URL (`//[`: node:http passes it on, and `new URL` would throw in the upgrade listener).
 */
export function requestPath(req: IncomingMessage): { url: URL; parts: string[] } | null {
  const target = req.url ?? "/";
  if (!URL.canParse(target, "http://localhost")) return null;
  const url = new URL(target, "http://localhost");
  return { url, parts: url.pathname.split("/").filter(Boolean) };
}

/** Which served environment a path names. */
export class EntryPaths {
  readonly #byName: Map<string, CatalogEntry>;
  readonly #single: CatalogEntry | undefined;

  constructor(readonly entries: readonly CatalogEntry[]) {
    this.#byName = new Map(entries.map((e) => [e.name, e]));
    this.#single = entries.length === 1 ? entries[0] : undefined;
  }

  /** The environment an HTTP path names and the route inside it (`rest`); undefined when none. */
  route(parts: string[]): { entry: CatalogEntry; rest: string[] } | undefined {
    let entry = parts.length > 0 ? this.#byName.get(parts[0]!) : undefined;
    let rest = parts.slice(1);
    // A server of one environment also serves it at the root, where OpenEnv clients look by default.
    if (!entry && this.#single && parts.length === 1) [entry, rest] = [this.#single, parts];
    return entry ? { entry, rest } : undefined;
  }

  /** The environment and socket kind of a WebSocket upgrade (`/<name>/ws`, `/<name>/mcp`). */
  socket(parts: string[]): { entry: CatalogEntry; kind: "ws" | "mcp" } | undefined {
    const entry =
      parts.length === 2
        ? this.#byName.get(parts[0]!)
        : parts.length === 1
          ? this.#single
          : undefined;
    const kind = parts.at(-1);
    if (!entry || (kind !== "ws" && kind !== "mcp")) return undefined;
    return { entry, kind };
  }
}
