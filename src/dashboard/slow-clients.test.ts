// `spade dashboard` against slowloris clients: a stalled Play body and headers sent byte by byte are
// answered 408 within the bounds, while a live-update stream outlives them and pages are served;
// one address cannot hold more than its share of connections.
import { describe, expect, it } from "vitest";
import { closedAfterEach, fileTempDir } from "../../test/cleanup.js";
import { skipWithout } from "../../test/missing.js";
import {
  CUT_BY_MS,
  endingWithin,
  NO_NON_LOOPBACK_ADDRESS,
  nonLoopbackAddress,
  SHORT_LIMITS as LIMITS,
  slowClient,
  slowClients,
  stalledBodyAndHeaders,
} from "../../test/slow-client.js";
import { startDashboard } from "./server.js";
import { testDashboardOptions } from "./testing/options.js";

const root = fileTempDir("spade-dash-slow-");
const start = closedAfterEach(startDashboard);
const portOf = (url: string) => Number(new URL(url).port);

describe("spade dashboard and slow clients", () => {
  it("answers 408 to a Play body that stalls and to headers sent byte by byte", async () => {
    const port = portOf(
      (await start(testDashboardOptions([root], { connectionLimits: LIMITS }))).url,
    );
    const endings = await stalledBodyAndHeaders(port, "/api/play/start", "/api/play/start");
    expect(endings.map((e) => e.status)).toEqual([
      "HTTP/1.1 408 Request Timeout",
      "HTTP/1.1 408 Request Timeout",
    ]);
    for (const ending of endings) expect(ending.ms).toBeLessThan(CUT_BY_MS);
  });

  it("keeps a live-update stream open past the request timeout", async () => {
    const port = portOf(
      (await start(testDashboardOptions([root], { connectionLimits: LIMITS }))).url,
    );
    const events = slowClient(port, "idle", "/events");
    expect(await endingWithin(events, CUT_BY_MS)).toBe("open");
    expect(events.answer()).toMatch(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: text\/event-stream/i,
    );
    events.socket.destroy();
  });

  it("serves a page while 1,000 clients with stalled bodies are open", async () => {
    const dashboard = await start(testDashboardOptions([root]));
    const stalled = await slowClients(1_000, portOf(dashboard.url), "body", "/api/play/start");
    const res = await fetch(`${dashboard.url}static/app.js`, {
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(200);
    expect(stalled.filter((c) => c.answer() !== "" || c.socket.closed).length).toBe(0);
  });
});

describe("spade dashboard's connections per address", () => {
  const other = nonLoopbackAddress();

  it.skipIf(skipWithout(other === null ? NO_NON_LOOPBACK_ADDRESS : null))(
    "drops a connection past one address's share and serves a page to another address",
    async () => {
      const from = other as string;
      const dashboard = await start(
        testDashboardOptions([root], {
          host: "0.0.0.0",
          connectionLimits: {
            ...LIMITS,
            keepAliveTimeoutMs: 30_000,
            maxConnections: 10,
            maxConnectionsPerAddress: 2,
          },
        }),
      );
      const port = portOf(dashboard.url);
      const held = await slowClients(2, port, "idle", "/static/app.js", from);
      const extra = slowClient(port, "idle", "/static/app.js", 100, from);
      const dropped = await endingWithin(extra, 5_000);
      expect(dropped === "open" ? dropped : dropped.statusLine).toBe("");
      expect(held.filter((c) => c.socket.closed).length).toBe(0);
      const res = await fetch(`http://127.0.0.1:${port}/static/app.js`);
      expect(res.status).toBe(200);
    },
  );
});
