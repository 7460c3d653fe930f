// The shared bounds on slow clients: what a stalled client is answered and when, what outlives the
// timeouts (an idle keep-alive connection, a slow handler), and the connection cap.
import { afterEach, describe, expect, it } from "vitest";
import { endingWithin, slowClient, slowClients } from "../../test/slow-client.js";
import {
  CONNECTIONS_CHECK_INTERVAL_MS,
  type ConnectionLimits,
  createLimitedServer,
  DEFAULT_CONNECTION_LIMITS,
  type LoopbackServer,
  listenLoopback,
  readBody,
  sendJson,
} from "./index.js";

/** Short bounds, so a test waits about a second. */
const SHORT: ConnectionLimits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 2_000,
  maxConnections: 3,
};
/** Slack for a loaded machine, on top of a bound and Node's check interval. */
const SLACK_MS = 1_000;
/** Node 20 closes an idle connection this long after its keep-alive timeout (a buffer against races). */
const NODE_KEEP_ALIVE_BUFFER_MS = 1_000;

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server under `limits` answering `{ bytes }` of a read body, after `delayMs`. */
async function echo(limits: Partial<ConnectionLimits>, delayMs = 0): Promise<LoopbackServer> {
  return listenLoopback(
    createLimitedServer(async (req, res) => {
      const text = await readBody(req, 1024).catch(() => null);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      sendJson(res, 200, { bytes: text?.length ?? null });
    }, limits),
  );
}

describe("createLimitedServer", () => {
  it("defaults to 10 s for headers, 30 s for a request, 5 s idle and 2,048 connections", () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 2_048,
    });
    expect(CONNECTIONS_CHECK_INTERVAL_MS).toBe(1_000);
  });

  it("answers 408 to a stalled body, to headers sent byte by byte and to silence, within bounds", async () => {
    server = await echo(SHORT);
    const body = slowClient(server.port, "body", "/");
    const headers = slowClient(server.port, "headers", "/");
    const silent = slowClient(server.port, "silent", "/");
    const [b, h, s] = await Promise.all([body.ended, headers.ended, silent.ended]);
    expect([b.statusLine, h.statusLine, s.statusLine]).toEqual([
      "HTTP/1.1 408 Request Timeout",
      "HTTP/1.1 408 Request Timeout",
      "HTTP/1.1 408 Request Timeout",
    ]);
    expect(body.answer()).toBe("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n");
    expect(b.ms).toBeGreaterThanOrEqual(SHORT.requestTimeoutMs - 50);
    for (const { ms } of [h, s]) expect(ms).toBeGreaterThanOrEqual(SHORT.headersTimeoutMs - 50);
    for (const { ms } of [b, h, s])
      expect(ms).toBeLessThan(SHORT.requestTimeoutMs + CONNECTIONS_CHECK_INTERVAL_MS + SLACK_MS);
  });

  it("keeps an idle connection past both timeouts, until the keep-alive timeout", async () => {
    server = await echo(SHORT);
    const idle = slowClient(server.port, "idle", "/");
    expect(await endingWithin(idle, 1_500)).toBe("open");
    expect(idle.answer()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"bytes":0\}$/);
    const { ms } = await idle.ended;
    expect(ms).toBeGreaterThanOrEqual(SHORT.keepAliveTimeoutMs - 50);
    expect(ms).toBeLessThan(SHORT.keepAliveTimeoutMs + NODE_KEEP_ALIVE_BUFFER_MS + SLACK_MS);
  });

  it("lets a handler take longer than the request timeout once the request is in", async () => {
    server = await echo(SHORT, 1_500);
    const res = await fetch(`http://127.0.0.1:${server.port}/`, { method: "POST", body: "abc" });
    expect([res.status, await res.json()]).toEqual([200, { bytes: 3 }]);
  });

  it("drops a connection past maxConnections, and serves again once stalled ones are cut", async () => {
    server = await echo(SHORT);
    const stalled = await slowClients(3, server.port, "body", "/");
    const extra = slowClient(server.port, "idle", "/");
    const dropped = await endingWithin(extra, 500);
    expect(dropped === "open" ? dropped : dropped.statusLine).toBe("");
    expect(stalled.filter((c) => c.socket.closed).length).toBe(0);
    await Promise.all(stalled.map((c) => c.ended));
    const res = await fetch(`http://127.0.0.1:${server.port}/`, { method: "POST", body: "ab" });
    expect([res.status, await res.json()]).toEqual([200, { bytes: 2 }]);
  });
});
