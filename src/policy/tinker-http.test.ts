import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SpadeError } from "../errors.js";
import type { RetryNotice } from "./retry.js";
import { answeredId, TinkerHttp } from "./tinker-http.js";
import { codeOf } from "../../test/assert.js";
import { recordingClock } from "./testing/clock.js";

/** TEST DOUBLE: a `fetch` that plays `answers` in order. */
function scriptedFetch(answers: Array<() => Response>): typeof fetch & { calls: number } {
  const f = (async () => {
    const next = answers[f.calls++];
    if (!next) throw new Error("script exhausted");
    return next();
  }) as unknown as typeof fetch & { calls: number };
  f.calls = 0;
  return f;
}

/** A 200 whose body stream breaks after its first chunk, as a connection closed mid-answer. */
function brokenBody(): Response {
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulls++ === 0) controller.enqueue(new TextEncoder().encode('{"result": '));
      else
        controller.error(
          Object.assign(new TypeError("terminated"), { cause: new Error("other side closed") }),
        );
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "application/json" } });
}

const json = (value: unknown) => () =>
  new Response(JSON.stringify(value), {
    status: 200,
    headers: { "content-type": "application/json" },
  });

describe("TinkerHttp answers", () => {
  it("retries an answer that breaks off mid-body and tells onRetry", async () => {
    const notices: RetryNotice[] = [];
    const fetch = scriptedFetch([brokenBody, json({ ok: 1 })]);
    const clock = recordingClock();
    const http = new TinkerHttp({
      baseURL: "http://engine",
      fetch,
      clock,
      heartbeatMs: 0,
      retry: { initialDelayMs: 10 },
      onRetry: (n) => notices.push(n),
    });
    expect(await http.post("/api/v1/x", {})).toEqual({ ok: 1 });
    expect([fetch.calls, clock.sleeps]).toEqual([2, [10]]);
    expect(notices.map((n) => [n.retry, n.failure.code, n.failure.message])).toEqual([
      [
        1,
        "E_POLICY_HTTP",
        "the connection to http://engine/api/v1/x broke off after 11 bytes of the answer: other side closed",
      ],
    ]);
  });

  it("codes a body that is not JSON and an answer over the cap E_POLICY_OUTPUT, without retrying", async () => {
    const fetch = scriptedFetch([
      () => new Response("<html>bad gateway</html>", { status: 200 }),
      json({ big: "x".repeat(5_000) }),
    ]);
    const http = new TinkerHttp({
      baseURL: "http://engine",
      fetch,
      clock: recordingClock(),
      heartbeatMs: 0,
      maxAnswerBytes: 2_048,
    });
    const notJson = (await http.post("/api/v1/x", {}).catch((e: unknown) => e)) as SpadeError;
    expect([notJson.code, notJson.message]).toEqual([
      "E_POLICY_OUTPUT",
      `http://engine/api/v1/x answered HTTP 200 with a body that is not JSON: "<html>bad gateway</html>" (1 attempt) (check the server's log; a proxy or a crashed worker may be cutting answers)`,
    ]);
    const big = (await http.post("/api/v1/x", {}).catch((e: unknown) => e)) as SpadeError;
    expect(big.code).toBe("E_POLICY_OUTPUT");
    expect(big.message).toMatch(
      /^http:\/\/engine\/api\/v1\/x sent an answer of (5\d{3}|more than 2048) bytes, over the cap of 2048 bytes \(1 attempt\)/,
    );
    expect(fetch.calls).toBe(2);
  });
});

describe("answeredId", () => {
  it("takes a string id (a number where allowed) and refuses anything else with E_POLICY_OUTPUT", () => {
    expect(answeredId({ session_id: "s1" }, "create_session", "session_id")).toBe("s1");
    expect(answeredId({ request_id: 7 }, "asample", "request_id", true)).toBe("7");
    expect(codeOf(() => answeredId({ session_id: 7 }, "create_session", "session_id"))).toBe(
      "E_POLICY_OUTPUT",
    );
    expect(codeOf(() => answeredId(null, "create_session", "session_id"))).toBe("E_POLICY_OUTPUT");
    expect(() => answeredId({}, "create_session", "session_id")).toThrow(
      "create_session answered without a session_id: {}",
    );
  });
});

describe("TinkerHttp heartbeats", () => {
  it("against a server that never answers them, one is out at a time, abandoned within the period", async () => {
    // TEST DOUBLE: a Tinker server that sets up the session and never answers a heartbeat.
    let beats = 0;
    const server = createServer((req, res) => {
      if (req.url === "/api/v1/session_heartbeat") return void beats++;
      const session = req.url === "/api/v1/create_session";
      res.writeHead(session ? 200 : 404, { "content-type": "application/json" });
      res.end(session ? '{"session_id": "s1"}' : "{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    let out = 0;
    let mostOut = 0;
    // The real fetch, counting the heartbeats sent and not yet settled.
    const counting = (async (url: string, init?: RequestInit) => {
      const beat = String(url).endsWith("/session_heartbeat");
      if (beat) mostOut = Math.max(mostOut, ++out);
      try {
        return await fetch(url, init);
      } finally {
        if (beat) out--;
      }
    }) as typeof fetch;
    const port = (server.address() as AddressInfo).port;
    const http = new TinkerHttp({
      baseURL: `http://127.0.0.1:${port}`,
      fetch: counting,
      heartbeatMs: 20,
    });
    try {
      expect(await http.session()).toBe("s1");
      // A generous bound: five beats take about 100-200 ms.
      const deadline = Date.now() + 10_000;
      while (beats < 5 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect([beats >= 5, mostOut]).toEqual([true, 1]);
    } finally {
      http.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

/**
 * TEST DOUBLE: the `fetch` of a Tinker server that sets up a session (its `create_session` answered
 * once `sessionAnswered` resolves) and never answers a heartbeat: each is held until its signal
 * aborts. `outstanding()` counts the heartbeats sent and not yet settled.
 */
function silentHeartbeats(sessionAnswered: Promise<void> = Promise.resolve()) {
  let beats = 0;
  let out = 0;
  const f = (async (url: string, init?: RequestInit) => {
    const path = new URL(url).pathname;
    if (path === "/api/v1/create_session") {
      await sessionAnswered;
      return Response.json({ session_id: "s1" });
    }
    if (path !== "/api/v1/session_heartbeat") return new Response("{}", { status: 404 });
    beats++;
    out++;
    return new Promise<Response>((_resolve, reject) =>
      init?.signal?.addEventListener("abort", () => (out--, reject(init.signal?.reason)), {
        once: true,
      }),
    );
  }) as typeof fetch;
  return { fetch: f, beats: () => beats, outstanding: () => out };
}

describe("TinkerHttp.close() and the heartbeat", () => {
  afterEach(() => void vi.useRealTimers());

  it("aborts the heartbeat in flight and leaves no timer of the client", async () => {
    vi.useFakeTimers();
    const server = silentHeartbeats();
    const http = new TinkerHttp({
      baseURL: "http://engine",
      fetch: server.fetch,
      heartbeatMs: 1_000,
    });
    expect(await http.session()).toBe("s1");
    await vi.advanceTimersByTimeAsync(1_000); // the first beat goes out, unanswered
    // Out: the beat; timers: the period's and the beat's timeout.
    expect([server.beats(), server.outstanding(), vi.getTimerCount()]).toEqual([1, 1, 2]);
    http.close();
    await vi.advanceTimersByTimeAsync(0);
    expect([server.outstanding(), vi.getTimerCount()]).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect([server.beats(), vi.getTimerCount()]).toEqual([1, 0]);
  });

  it("starts no heartbeat for a session created after close()", async () => {
    vi.useFakeTimers();
    let answer: () => void = () => {};
    const server = silentHeartbeats(new Promise<void>((resolve) => (answer = resolve)));
    const http = new TinkerHttp({
      baseURL: "http://engine",
      fetch: server.fetch,
      heartbeatMs: 1_000,
    });
    const session = http.session();
    await vi.advanceTimersByTimeAsync(0); // create_session is out
    http.close();
    answer();
    expect(await session).toBe("s1");
    await vi.advanceTimersByTimeAsync(10_000);
    expect([server.beats(), server.outstanding(), vi.getTimerCount()]).toEqual([0, 0, 0]);
  });
});
