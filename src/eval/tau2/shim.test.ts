// SPADE's OpenAI-compatible shim: the wire shapes the harness (litellm) reads, and coded refusals.
import { afterEach, describe, expect, it } from "vitest";
import { endingWithin, slowClient } from "../../../test/slow-client.js";
import { SpadeError } from "../../errors.js";
import { CONNECTIONS_CHECK_INTERVAL_MS, DEFAULT_CONNECTION_LIMITS } from "../../net/index.js";
import { DEFAULT_SHIM_MAX_BODY_BYTES, startShim, type Shim } from "./index.js";

let shim: Shim | undefined;
afterEach(async () => {
  await shim?.close();
  shim = undefined;
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("startShim", () => {
  it("answers text and tool calls as chat.completion objects and records each request", async () => {
    shim = await startShim(
      {
        talker: () => ({ content: "hello" }),
        caller: (req) => ({
          toolCall: { name: "lookup", arguments: { id: req.headers["x-tau2-task-id"] ?? null } },
        }),
      },
      { record: true },
    );
    const a = (await (
      await post(shim.baseURL, {
        model: "talker",
        messages: [{ role: "user", content: "hi" }],
        top_k: 20,
      })
    ).json()) as any;
    expect(a.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" },
    ]);
    const b = (await (
      await post(shim.baseURL, { model: "caller", messages: [] }, { "X-Tau2-Task-Id": "12" })
    ).json()) as any;
    expect(b.choices[0].message.tool_calls).toEqual([
      { id: "call_2", type: "function", function: { name: "lookup", arguments: '{"id":"12"}' } },
    ]);
    expect(b.choices[0].finish_reason).toBe("tool_calls");
    expect(shim.requests.map((r) => [r.model, r.body.top_k ?? null])).toEqual([
      ["talker", 20],
      ["caller", null],
    ]);
  });

  it("refuses an unknown model with 404 and reports a handler's error as 500", async () => {
    shim = await startShim({
      broken: () => {
        throw new Error("scripted failure");
      },
    });
    const missing = await post(shim.baseURL, { model: "nope", messages: [] });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.message).toBe(
      'model "nope" is not served here (served: broken)',
    );
    const failed = await post(shim.baseURL, { model: "broken", messages: [] });
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as any).error.message).toBe("scripted failure");
  });

  it("answers a model server's failure behind a handler 502 and another coded error 400", async () => {
    shim = await startShim({
      down: () => {
        throw new SpadeError("E_POLICY_TIMEOUT", "the sampler gave no answer within 600 s");
      },
      long: () => {
        throw new SpadeError("E_POLICY_CONTEXT", "the conversation is over the budget");
      },
    });
    const down = await post(shim.baseURL, { model: "down", messages: [] });
    expect([down.status, ((await down.json()) as any).error]).toEqual([
      502,
      { message: "the sampler gave no answer within 600 s", type: "bad_gateway" },
    ]);
    const long = await post(shim.baseURL, { model: "long", messages: [] });
    expect([long.status, ((await long.json()) as any).error]).toEqual([
      400,
      { message: "the conversation is over the budget", type: "invalid_request_error" },
    ]);
  });

  it("answers a body over its cap 413 with an OpenAI error object, without keeping it", async () => {
    shim = await startShim(
      { talker: () => ({ content: "hi" }) },
      { maxBodyBytes: 1024, record: true },
    );
    const at = { model: "talker", messages: [], pad: "" };
    at.pad = "p".repeat(1024 - JSON.stringify(at).length);
    const ok = await post(shim.baseURL, at);
    const over = await post(shim.baseURL, { ...at, pad: `${at.pad}p` });
    expect([ok.status, over.status, await over.json()]).toEqual([
      200,
      413,
      { error: { message: "request body over 1024 bytes", type: "invalid_request_error" } },
    ]);
    expect(shim.requests.map((r) => JSON.stringify(r.body).length)).toEqual([1024]);
  });

  it("keeps no request unless asked to (each carries the whole conversation)", async () => {
    shim = await startShim({ talker: () => ({ content: "hi" }) });
    const ok = await post(shim.baseURL, { model: "talker", messages: [] });
    expect(ok.status).toBe(200);
    expect(shim.requests).toEqual([]);
  });

  it("by default takes a body of 16 MiB and refuses one byte more", async () => {
    shim = await startShim({ talker: () => ({ content: "hi" }) });
    const at = { model: "talker", messages: [], pad: "" };
    at.pad = "p".repeat(DEFAULT_SHIM_MAX_BODY_BYTES - JSON.stringify(at).length);
    const ok = await post(shim.baseURL, at);
    const over = await post(shim.baseURL, { ...at, pad: `${at.pad}p` });
    expect([DEFAULT_SHIM_MAX_BODY_BYTES, ok.status, over.status]).toEqual([
      16 * 1024 * 1024,
      200,
      413,
    ]);
  });

  it("fails E_IO, saying what to do, when its port is taken", async () => {
    shim = await startShim({ talker: () => ({ content: "hi" }) });
    const port = Number(new URL(shim.baseURL).port);
    await expect(startShim({ talker: () => ({ content: "hi" }) }, { port })).rejects.toMatchObject({
      code: "E_IO",
      nextStep: "free the port or omit it",
      message: expect.stringMatching(/^the tau2 model shim cannot listen: listen EADDRINUSE/),
    });
  });
});

describe("the shim and slow clients", () => {
  const portOf = (shim: Shim) => Number(new URL(shim.baseURL).port);

  it("holds 300 requests in flight at once, past one address's share: loopback is not counted", async () => {
    // litellm opens a connection for each request in flight: one per simulation (--concurrency).
    const inFlight = 300;
    let arrived = 0;
    let all: () => void = () => {};
    const allArrived = new Promise<void>((resolve) => (all = resolve));
    shim = await startShim({
      waiter: async () => {
        if (++arrived === inFlight) all();
        await allArrived;
        return { content: "ok" };
      },
    });
    expect(inFlight).toBeGreaterThan(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress);
    const url = shim.baseURL;
    const answers = await Promise.all(
      Array.from({ length: inFlight }, () => post(url, { model: "waiter", messages: [] })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(inFlight).fill(200));
    expect(arrived).toBe(inFlight);
  });

  it("by default cuts a silent client in 10 s, yet keeps litellm's idle connection open", async () => {
    shim = await startShim({ talker: () => ({ content: "hi" }) });
    const idle = slowClient(portOf(shim), "idle", "/v1/models");
    const silent = slowClient(portOf(shim), "silent", "/");
    const bound = DEFAULT_CONNECTION_LIMITS.headersTimeoutMs + CONNECTIONS_CHECK_INTERVAL_MS;
    const ending = await endingWithin(silent, bound + 2_000);
    expect(ending === "open" ? ending : ending.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(ending === "open" ? Infinity : ending.ms).toBeGreaterThanOrEqual(
      DEFAULT_CONNECTION_LIMITS.headersTimeoutMs - 50,
    );
    expect(await endingWithin(idle, 0)).toBe("open");
    expect(idle.answer()).toMatch(
      /^HTTP\/1\.1 404 Not Found\r\n[\s\S]*Keep-Alive: timeout=600\r\n/,
    );
    idle.socket.destroy();
  }, 20_000);

  it("answers 408 to a stalled body, but waits on a handler slower than the request timeout", async () => {
    const limits = { headersTimeoutMs: 300, requestTimeoutMs: 600 };
    const slowModel = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return { content: "late" };
    };
    shim = await startShim({ slow: slowModel }, { connectionLimits: limits });
    const stalled = slowClient(portOf(shim), "body", "/v1/chat/completions");
    const late = await post(shim.baseURL, { model: "slow", messages: [] });
    expect([late.status, ((await late.json()) as any).choices[0].message.content]).toEqual([
      200,
      "late",
    ]);
    const ending = await endingWithin(stalled, 5_000);
    expect(ending === "open" ? ending : ending.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(ending === "open" ? Infinity : ending.ms).toBeLessThan(
      limits.requestTimeoutMs + CONNECTIONS_CHECK_INTERVAL_MS + 1_000,
    );
  });

  it("answers a request sent on a connection idle longer than both timeouts", async () => {
    shim = await startShim(
      { talker: () => ({ content: "hi" }) },
      { connectionLimits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } },
    );
    const client = slowClient(portOf(shim), "idle", "/v1/models");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const body = JSON.stringify({ model: "talker", messages: [] });
    client.socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const statuses = client.answer().match(/HTTP\/1\.1 \d{3} [^\r]*/g); // bodies end without a newline
    expect(statuses).toEqual(["HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK"]);
    client.socket.destroy();
  });
});
