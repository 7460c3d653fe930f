// `spade serve` against slowloris clients: stalled bodies and headers are answered 408 within the
// bounds, a normal request is served while 1,000 stalled clients are open, the connection cap and
// one address's share of it leave room for every session, a WebSocket session outlives the
// request timeout, and one that reads none of its answers is not answered further until it does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { skipWithout } from "../../test/missing.js";
import * as slow from "../../test/slow-client.js";
import { makeTestEnv } from "../env/testing/test-env.js";
import { catalogSources, loadCatalog, type CatalogEntry } from "./catalog.js";
import { startServer, type ServeHandle } from "./server.js";

let entries: CatalogEntry[];
let server: ServeHandle;

beforeAll(async () => {
  entries = await loadCatalog(catalogSources(["bank-transfer"]));
  server = await startServer({ entries, port: 0, connectionLimits: slow.SHORT_LIMITS });
});
afterAll(() => server.close());

describe("spade serve and slow clients", () => {
  it("answers 408 to a /reset body that stalls and to headers sent byte by byte", async () => {
    const endings = await slow.stalledBodyAndHeaders(
      server.port,
      "/bank-transfer/reset",
      "/bank-transfer/step",
    );
    expect(endings.map((e) => e.status)).toEqual([
      "HTTP/1.1 408 Request Timeout",
      "HTTP/1.1 408 Request Timeout",
    ]);
    for (const ending of endings) expect(ending.ms).toBeLessThan(slow.CUT_BY_MS);
  });

  it("serves /health while 1,000 clients with stalled bodies are open", async () => {
    const patient = await startServer({ entries, port: 0 }); // the default bounds: none is cut yet
    try {
      const stalled = await slow.slowClients(1_000, patient.port, "body", "/bank-transfer/reset");
      const res = await fetch(`${patient.url}/health`, { signal: AbortSignal.timeout(5_000) });
      expect([res.status, await res.json()]).toEqual([200, { status: "healthy" }]);
      expect(stalled.filter((c) => c.answer() !== "" || c.socket.closed).length).toBe(0);
    } finally {
      await patient.close();
    }
  });

  it("keeps a WebSocket session past the request timeout", async () => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/bank-transfer/ws`);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    await new Promise((resolve) => setTimeout(resolve, slow.CUT_BY_MS));
    const answer = new Promise<Record<string, unknown>>((resolve) =>
      ws.once("message", (data) => resolve(JSON.parse(data.toString()))),
    );
    ws.send(JSON.stringify({ type: "reset", data: { seed: 1 } }));
    expect((await answer).type).toBe("observation");
    ws.close();
  });
});

describe("spade serve's connection cap", () => {
  it("holds max sessions plus maxConnections connections, and drops one past them", async () => {
    const capped = await startServer({
      entries,
      port: 0,
      maxSessions: 1,
      connectionLimits: { ...slow.SHORT_LIMITS, maxConnections: 2 },
    });
    try {
      const stalled = await slow.slowClients(3, capped.port, "body", "/bank-transfer/reset");
      const extra = slow.slowClient(capped.port, "idle", "/health");
      const dropped = await slow.endingWithin(extra, 500);
      expect(dropped === "open" ? dropped : dropped.statusLine).toBe("");
      expect(stalled.filter((c) => c.answer() !== "" || c.socket.closed).length).toBe(0);
    } finally {
      await capped.close();
    }
  });
});

describe("spade serve's connections per address", () => {
  const other = slow.nonLoopbackAddress();

  it.skipIf(skipWithout(other === null ? slow.NO_NON_LOOPBACK_ADDRESS : null))(
    "holds max sessions plus the share from one address, drops one past them, serves another address",
    async () => {
      const from = other as string;
      const capped = await startServer({
        entries,
        host: "0.0.0.0",
        port: 0,
        maxSessions: 1,
        connectionLimits: {
          ...slow.SHORT_LIMITS,
          keepAliveTimeoutMs: 30_000,
          maxConnections: 10,
          maxConnectionsPerAddress: 2,
        },
      });
      try {
        const ws = new WebSocket(`ws://${from}:${capped.port}/bank-transfer/ws`);
        await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
        const idle = await slow.slowClients(2, capped.port, "idle", "/health", from);
        const extra = slow.slowClient(capped.port, "idle", "/health", 100, from);
        const dropped = await slow.endingWithin(extra, 5_000);
        expect(dropped === "open" ? dropped : dropped.statusLine).toBe("");
        expect([ws.readyState, ...idle.map((c) => c.socket.closed)]).toEqual([
          WebSocket.OPEN,
          false,
          false,
        ]);
        const res = await fetch(`http://127.0.0.1:${capped.port}/health`);
        expect([res.status, await res.json()]).toEqual([200, { status: "healthy" }]);
        ws.terminate();
      } finally {
        await capped.close();
      }
    },
  );
});

describe("spade serve and a WebSocket client that reads nothing", () => {
  it("handles its frames only while it reads its answers, then answers all 400 in order", async () => {
    const frames = 400;
    const padding = "x".repeat(256 * 1024); // 100 MiB of answers in all, far past any socket buffer
    let resets = 0;
    const env = makeTestEnv({
      reset: (seed) => {
        resets += 1;
        return { observation: `${seed} ${padding}`, info: {} };
      },
    });
    const served = await startServer({ entries, port: 0, deps: { open: async () => env } });
    try {
      const ws = new WebSocket(`${served.url.replace("http", "ws")}/bank-transfer/ws`);
      await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
      ws.pause();
      for (let seed = 0; seed < frames; seed++)
        ws.send(JSON.stringify({ type: "reset", data: { seed } }));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const whileUnread = resets;
      const seeds: number[] = [];
      const all = new Promise<void>((resolve) =>
        ws.on("message", (data) => {
          const { observation } = JSON.parse(data.toString()).data;
          seeds.push(Number(observation.text.split(" ")[0]));
          if (seeds.length === frames) resolve();
        }),
      );
      ws.resume();
      await all;
      expect(whileUnread).toBeLessThan(frames);
      expect([seeds, resets]).toEqual([Array.from({ length: frames }, (_, i) => i), frames]);
      ws.terminate();
    } finally {
      await served.close();
    }
  });
});
