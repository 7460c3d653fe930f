/**
 * @module dashboard/auth
 * Who may read the dashboard: without a token only loopback Host names (no DNS rebinding); with
 * one, requests that carry it (`?token=` once, then an HttpOnly cookie).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

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
  if (cookie === token) return true;
  if (url.searchParams.get("token") === token) {
    res.setHeader("set-cookie", `spade_token=${token}; HttpOnly; SameSite=Strict; Path=/`);
    return true;
  }
  return false;
}
