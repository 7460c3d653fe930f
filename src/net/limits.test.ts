// The shared bounds on slow clients: what a stalled client is answered and when, what outlives the
// timeouts (an idle keep-alive connection, a slow handler), the connection cap and its share per
// address.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { skipWithout } from "../../test/missing.js";
import {
  endingWithin,
  NO_NON_LOOPBACK_ADDRESS,
  nonLoopbackAddress,
  slowClient,
  slowClients,
} from "../../test/slow-client.js";
import {
  CONNECTIONS_CHECK_INTERVAL_MS,
  type ConnectionLimits,
  createLimitedServer,
  DEFAULT_CONNECTION_LIMITS,
  type LoopbackServer,
  listenLoopback,
  perAddressShare,
  readBody,
  resolveLimits,
  sendJson,
} from "./index.js";

/** Short bounds, so a test waits about a second. */
const SHORT: ConnectionLimits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 2_000,
  maxConnections: 3,
  maxConnectionsPerAddress: 3,
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
  it("defaults to 10 s for headers, 30 s for a request, 5 s idle, 2,048 connections, 256 per address", () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 2_048,
      maxConnectionsPerAddress: 256,
    });
    expect(CONNECTIONS_CHECK_INTERVAL_MS).toBe(1_000);
  });

  it("gives one address an eighth of the connections, at least one, unless told otherwise", () => {
    expect([2_048, 100, 16, 15, 8, 7, 1].map(perAddressShare)).toEqual([256, 12, 2, 1, 1, 1, 1]);
    expect(resolveLimits({ maxConnections: 100 })).toEqual({
      ...DEFAULT_CONNECTION_LIMITS,
      maxConnections: 100,
      maxConnectionsPerAddress: 12,
    });
    expect(resolveLimits({ maxConnections: 100, maxConnectionsPerAddress: 50 })).toMatchObject({
      maxConnections: 100,
      maxConnectionsPerAddress: 50,
    });
    expect(resolveLimits()).toEqual(DEFAULT_CONNECTION_LIMITS);
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

/** Starts `server` on every IPv4 interface, so clients can come from loopback and from `OTHER`. */
async function listenEverywhere(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

/**
 * The answer's status line to a GET from `host`, once one is not dropped: a closed connection's
 * place is freed when the server sees the close, which may come after the client's own.
 */
async function servedFrom(host: string, port: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = slowClient(port, "idle", "/", 100, host);
    await Promise.race([
      client.ended,
      new Promise((resolve) => client.socket.once("data", resolve)),
    ]);
    const status = client.answer().split("\r\n")[0] ?? "";
    client.socket.destroy();
    if (status !== "") return status;
    if (Date.now() > deadline) throw new Error(`every connection from ${host} was dropped`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** This machine's non-loopback address: clients from it are counted per address, loopback ones are not. */
const OTHER = nonLoopbackAddress();

describe("createLimitedServer's bound per address", () => {
  let open: { close(): Promise<void> } | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });
  const limits = { ...SHORT, keepAliveTimeoutMs: 30_000, maxConnections: 10 };
  const okServer = (bounds: ConnectionLimits) =>
    createLimitedServer((_req, res) => sendJson(res, 200, { ok: true }), bounds);

  it.skipIf(skipWithout(OTHER === null ? NO_NON_LOOPBACK_ADDRESS : null))(
    "drops a connection past the address's share, serves other addresses, and frees a closed one's place",
    async () => {
      const server = okServer({ ...limits, maxConnectionsPerAddress: 2 });
      const { port, close } = await listenEverywhere(server);
      open = { close };
      const held = await slowClients(2, port, "idle", "/", OTHER as string);
      const extra = slowClient(port, "idle", "/", 100, OTHER as string);
      const dropped = await endingWithin(extra, 5_000);
      expect(dropped === "open" ? dropped : dropped.statusLine).toBe("");
      expect(held.filter((c) => c.socket.closed).length).toBe(0);
      const fromLoopback = await fetch(`http://127.0.0.1:${port}/`);
      expect([fromLoopback.status, await fromLoopback.json()]).toEqual([200, { ok: true }]);

      held[0]?.socket.destroy();
      expect(await servedFrom(OTHER as string, port)).toBe("HTTP/1.1 200 OK");
    },
  );

  it("does not count loopback clients: all 6 are served under a share of 2", async () => {
    const server = okServer({ ...limits, maxConnectionsPerAddress: 2 });
    const { port, close } = await listenEverywhere(server);
    open = { close };
    const clients = await slowClients(6, port, "idle", "/");
    await Promise.all(
      clients.map(
        (c) =>
          new Promise<void>((resolve) => {
            const answered = () => (c.answer().endsWith('{"ok":true}') ? resolve() : undefined);
            c.socket.on("data", answered);
            answered();
          }),
      ),
    );
    expect(clients.filter((c) => c.socket.closed).length).toBe(0);
    expect(clients.map((c) => c.answer().split("\r\n")[0])).toEqual(
      Array(6).fill("HTTP/1.1 200 OK"),
    );
  });
});
