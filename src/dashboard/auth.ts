/**
 * @module dashboard/auth
 * Who may read the dashboard: without a token only loopback Host names (no DNS rebinding); with
 * one, requests that carry it (`?token=` once, then an HttpOnly cookie).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * True when `given` is `token`, in time that does not depend on where they differ: `===` stops at
 * the first different character. Both sides are hashed first, so `timingSafeEqual` gets equal
 * lengths and the time says nothing about the token's length either.
 */
function sameToken(given: string | null | undefined, token: string): boolean {
  if (given === null || given === undefined) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** True for names that reach only this machine. */
export function isLoopback(host: string): boolean {
  return (
    host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

/** The token check: `?token=` sets a cookie; later requests carry the cookie. */
export function authorized(
  req: IncomingMessage,
  res: ServerResponse,
  token: string | null,
): boolean {
  if (token === null) {
    // Loopback only: refuse other Host names, so a web page elsewhere cannot rebind its name onto this port.
    const hostHeader = String(req.headers.host ?? "").replace(/:\d+$/, "");
    return isLoopback(hostHeader);
  }
  const url = new URL(req.url ?? "/", "http://dashboard");
  const cookie = /(?:^|;\s*)spade_token=([^;]+)/.exec(String(req.headers.cookie ?? ""))?.[1];
  if (sameToken(cookie, token)) return true;
  if (sameToken(url.searchParams.get("token"), token)) {
    res.setHeader("set-cookie", `spade_token=${token}; HttpOnly; SameSite=Strict; Path=/`);
    return true;
  }
  return false;
}
