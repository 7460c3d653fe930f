// The live change feed's cap on open event streams: past it a stream is 503, and a closed one
// frees its place.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { LiveFeed, MAX_EVENT_STREAMS } from "./live.js";

describe("LiveFeed", () => {
  it("serves at most `maxStreams` event streams at once; more are 503 until one closes", async () => {
    const feed = new LiveFeed(() => [], 60_000, 2);
    const server = createServer((req, res) => feed.subscribe(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    const pages = [new AbortController(), new AbortController()];
    try {
      const open = await Promise.all(pages.map((p) => fetch(url, { signal: p.signal })));
      expect(open.map((r) => [r.status, r.headers.get("content-type")])).toEqual([
        [200, "text/event-stream"],
        [200, "text/event-stream"],
      ]);
      const refused = await fetch(url);
      expect([refused.status, refused.headers.get("content-type")]).toEqual([
        503,
        "text/plain; charset=utf-8",
      ]);
      expect(await refused.text()).toBe(
        "2 live-update streams are open, the most this dashboard serves: close other dashboard tabs, then reload\n",
      );
      pages[0]?.abort();
      // A generous bound: the server sees the closed stream within milliseconds.
      let again = 503;
      for (const deadline = Date.now() + 10_000; again === 503 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const page = new AbortController();
        pages.push(page);
        again = (await fetch(url, { signal: page.signal })).status;
      }
      expect([again, MAX_EVENT_STREAMS]).toEqual([200, 100]);
    } finally {
      for (const p of pages) p.abort();
      feed.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
