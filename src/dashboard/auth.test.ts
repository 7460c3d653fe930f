import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { authorized, isLoopback } from "./auth.js";

// The real timingSafeEqual, recorded: the token check must go through it.
const compared = vi.hoisted(() => [] as Array<[number, number]>);
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

/** TEST DOUBLE: a request's URL and headers, and a response that records the headers set. */
function exchange(url: string, headers: Record<string, string>) {
  const set: Array<[string, unknown]> = [];
  const req = { url, headers } as unknown as IncomingMessage;
  const res = { setHeader: (name: string, value: unknown) => set.push([name, value]) };
  return { req, res: res as unknown as ServerResponse, set };
}

describe("isLoopback", () => {
  it("accepts localhost, 127.x.y.z and ::1 (bare or bracketed) and nothing else", () => {
    const hosts = ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"];
    expect(hosts.map(isLoopback)).toEqual([true, true, true, true, true]);
    const others = ["0.0.0.0", "192.168.1.2", "localhost.evil.com", "127.0.0.1.nip.io", "", "::"];
    expect(others.map(isLoopback)).toEqual([false, false, false, false, false, false]);
  });
});

describe("authorized", () => {
  it("without a token serves loopback Host names only, port or not", () => {
    const hosts = ["127.0.0.1:8080", "localhost", "[::1]:9", "evil.example:8080", ""];
    expect(
      hosts.map((host) => authorized(exchange("/", { host }).req, exchange("/", {}).res, null)),
    ).toEqual([true, true, true, false, false]);
  });

  it("with a token takes it from the query once (setting the cookie), then from the cookie", () => {
    const first = exchange("/run/r0?token=s3cret", { host: "box:1" });
    expect(authorized(first.req, first.res, "s3cret")).toBe(true);
    expect(first.set).toEqual([
      ["set-cookie", "spade_token=s3cret; HttpOnly; SameSite=Strict; Path=/"],
    ]);
    const later = exchange("/", { host: "box:1", cookie: "theme=dark; spade_token=s3cret" });
    expect([authorized(later.req, later.res, "s3cret"), later.set]).toEqual([true, []]);
    const wrong = exchange("/?token=guess", { host: "127.0.0.1", cookie: "spade_token=old" });
    expect([authorized(wrong.req, wrong.res, "s3cret"), wrong.set]).toEqual([false, []]);
  });

  it("compares tokens with timingSafeEqual over SHA-256 digests, whatever the lengths", () => {
    const given = ["s3cret", "s3creT", "s3cre", "s3cret-and-more", ""];
    const results = given.map((t) => {
      compared.length = 0;
      const { req, res } = exchange(`/?token=${t}`, { host: "box:1" });
      return [authorized(req, res, "s3cret"), ...compared];
    });
    expect(results).toEqual([
      [true, [32, 32]],
      [false, [32, 32]],
      [false, [32, 32]],
      [false, [32, 32]],
      [false, [32, 32]],
    ]);
  });
});
