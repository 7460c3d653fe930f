import { afterEach, describe, expect, it } from "vitest";
import { type SpadeError, isSpadeError } from "../errors.js";
import {
  fakeLogprob,
  fakeTokenIds,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeScript,
} from "../../test/fakes/openai-server.js";
import { Limiter } from "./limiter.js";
import { openAIChatBackend, resolveApiKey, type OpenAIChatOptions } from "./openai.js";
import { recordingClock } from "./testing/clock.js";
import type { ChatMessage } from "./types.js";

/** Retry sleeps recorded, no jitter; `now` stands at 2026-01-01 for Retry-After dates. */
const fakeClock = () => recordingClock({ nowMs: Date.parse("2026-01-01T00:00:00Z") });

const MESSAGES: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "hi" },
];

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: FakeScript, options: Partial<OpenAIChatOptions> = {}) {
  server = await startFakeOpenAIServer(script);
  const clock = fakeClock();
  const backend = openAIChatBackend({
    baseURL: server.baseURL,
    model: "fake-model",
    clock,
    retry: { initialDelayMs: 100 },
    ...options,
  });
  return { server, clock, backend };
}

describe("openAIChatBackend", () => {
  it("sends model, messages and sampling parameters and parses a text answer", async () => {
    const { server, backend } = await setup(
      [{ kind: "text", content: "The answer is \\boxed{7}." }],
      {
        sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 64, stop: ["</s>"], seed: 5, n: 1 },
      },
    );
    const out = await backend.complete({ messages: MESSAGES, sampling: { temperature: 0 } });
    expect(out.choices).toEqual([
      {
        content: "The answer is \\boxed{7}.",
        toolCalls: [],
        malformedToolCalls: [],
        rawToolCalls: [],
        finishReason: "stop",
        tokenIds: null,
        logprobs: null,
        tokens: null,
      },
    ]);
    expect(out.promptTokenIds).toBeNull();
    expect(out.usage).toEqual({ promptTokens: 6, completionTokens: 24 });
    const body = server.requests[0]!.body;
    expect(body).toEqual({
      model: "fake-model",
      messages: MESSAGES,
      temperature: 0,
      top_p: 0.9,
      max_tokens: 64,
      stop: ["</s>"],
      seed: 5,
      n: 1,
    });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer EMPTY");
  });

  it("passes tools and parses tool_calls with nested arguments intact", async () => {
    const args = {
      query: { city: "Paris", dates: ["2026-01-02", { flexible: true }] },
      limit: 3,
      price: 1.5,
    };
    const { server, backend } = await setup([
      {
        kind: "tool_calls",
        calls: [
          { id: "call_a", name: "search", arguments: JSON.stringify(args) },
          { name: "noop", arguments: "" },
        ],
      },
    ]);
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "search",
          description: "find",
          parameters: { type: "object", properties: {} },
        },
      },
    ];
    const out = await backend.complete({ messages: MESSAGES, tools });
    const choice = out.choices[0]!;
    expect(choice.toolCalls).toEqual([
      { id: "call_a", name: "search", arguments: args },
      { id: "call_fake_1", name: "noop", arguments: {} },
    ]);
    expect(choice.malformedToolCalls).toEqual([]);
    expect(choice.finishReason).toBe("tool_calls");
    expect(choice.rawToolCalls[0]).toEqual({
      id: "call_a",
      type: "function",
      function: { name: "search", arguments: JSON.stringify(args) },
    });
    expect(server.requests[0]!.body.tools).toEqual(tools);
  });

  it("parses <tool_call> text in the content when the server returns no tool_calls", async () => {
    const text =
      'Let me look.\n<tool_call>{"name": "lookup", "arguments": {"filter": {"tags": ["a", "b"], "range": {"min": 1}}}}</tool_call>';
    const { backend } = await setup([{ kind: "text", content: text }]);
    const choice = (await backend.complete({ messages: MESSAGES })).choices[0]!;
    expect(choice.content).toBe(text);
    expect(choice.toolCalls).toEqual([
      {
        id: "call_0",
        name: "lookup",
        arguments: { filter: { tags: ["a", "b"], range: { min: 1 } } },
      },
    ]);
  });

  it("reports malformed tool-call JSON as data, without throwing", async () => {
    const { backend } = await setup([
      { kind: "tool_calls", calls: [{ id: "c1", name: "search", arguments: '{"city": "Par' }] },
      { kind: "text", content: "<tool_call>{not json}</tool_call>" },
    ]);
    const first = (await backend.complete({ messages: MESSAGES })).choices[0]!;
    expect(first.toolCalls).toEqual([]);
    expect(first.malformedToolCalls).toEqual([
      JSON.stringify({
        id: "c1",
        type: "function",
        function: { name: "search", arguments: '{"city": "Par' },
      }),
    ]);
    const second = (await backend.complete({ messages: MESSAGES })).choices[0]!;
    expect([second.toolCalls, second.malformedToolCalls]).toEqual([[], ["{not json}"]]);
  });

  it("waits what retry-after says on 429, then succeeds", async () => {
    const { server, clock, backend } = await setup([
      { kind: "status", status: 429, headers: { "retry-after": "2" } },
      { kind: "status", status: 429, headers: { "retry-after-ms": "350" } },
      { kind: "text", content: "ok" },
    ]);
    const out = await backend.complete({ messages: MESSAGES });
    expect(out.choices[0]!.content).toBe("ok");
    expect(server.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([2000, 350]);
  });

  it("retries 500s with exponential backoff and fails with E_POLICY_HTTP after maxRetries", async () => {
    const { server, clock, backend } = await setup(
      () => ({ kind: "status", status: 500, message: "engine died" }),
      { retry: { maxRetries: 3, initialDelayMs: 100 } },
    );
    const err = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    expect(server.requests).toHaveLength(4);
    expect(clock.sleeps).toEqual([100, 200, 400]);
    expect(isSpadeError(err, "E_POLICY_HTTP")).toBe(true);
    expect((err as SpadeError).message).toContain("answered HTTP 500");
    expect((err as SpadeError).message).toContain("(4 attempts)");
    expect((err as SpadeError).nextStep).toBe(
      "the server is overloaded or failing: lower the concurrency (--concurrency), or check its log",
    );
  });

  it("does not retry a 400", async () => {
    const { server, clock, backend } = await setup([
      { kind: "status", status: 400, message: "bad field" },
    ]);
    const err = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    expect([server.requests.length, clock.sleeps, isSpadeError(err, "E_POLICY_HTTP")]).toEqual([
      1,
      [],
      true,
    ]);
  });

  it("waits for a slow answer within the timeout, telling onSlow it is still waiting", async () => {
    const slow: unknown[] = [];
    const { server, backend } = await setup(
      [{ kind: "slow", delayMs: 150, reply: { kind: "text", content: "late" } }],
      { retry: { timeoutMs: 5_000, noticeAfterMs: 40 }, onSlow: (n) => slow.push(n) },
    );
    expect((await backend.complete({ messages: MESSAGES })).choices[0]!.content).toBe("late");
    expect(slow).toEqual([
      { label: `${server.baseURL}/chat/completions`, attempt: 1, waitedMs: 40, timeoutMs: 5_000 },
    ]);
  });

  it("abandons answers that never come after timeoutMs, retries, then fails with E_POLICY_TIMEOUT", async () => {
    const { server, clock, backend } = await setup(() => ({ kind: "hang" }), {
      retry: { timeoutMs: 150, maxRetries: 1, initialDelayMs: 100 },
    });
    const started = Date.now();
    const err = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_POLICY_TIMEOUT")).toBe(true);
    expect((err as SpadeError).message).toContain("gave no answer within 150 ms (2 attempts)");
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([100]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it("cancels a hanging request through the request's signal with E_CANCELLED", async () => {
    const { backend } = await setup(() => ({ kind: "hang" }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await backend
      .complete({ messages: MESSAGES, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(isSpadeError(err, "E_CANCELLED")).toBe(true);
  });

  it("keeps logprobs, token ids and prompt logprobs when asked (vLLM extras as body fields)", async () => {
    const { server, backend } = await setup(
      [
        { kind: "text", content: "ab" },
        { kind: "text", content: "c" },
      ],
      {
        logprobs: true,
        topLogprobs: 2,
        returnTokenIds: true,
        returnTokensAsTokenIds: true,
        promptLogprobs: 1,
      },
    );
    const out = await backend.complete({ messages: MESSAGES });
    expect(server.requests[0]!.body).toMatchObject({
      logprobs: true,
      top_logprobs: 2,
      return_token_ids: true,
      return_tokens_as_token_ids: true,
      prompt_logprobs: 1,
    });
    expect(out.choices[0]).toMatchObject({
      tokenIds: [97, 98],
      logprobs: [fakeLogprob(0), fakeLogprob(1)],
      tokens: ["token_id:97", "token_id:98"],
    });
    expect(out.promptTokenIds).toEqual(fakeTokenIds("sys\nhi"));
    expect(out.promptLogprobs).toEqual([
      null,
      { 121: { logprob: -1, rank: 1, decoded_token: "y" } },
      { 115: { logprob: -1, rank: 1, decoded_token: "s" } },
      { 10: { logprob: -1, rank: 1, decoded_token: "\n" } },
      { 104: { logprob: -1, rank: 1, decoded_token: "h" } },
      { 105: { logprob: -1, rank: 1, decoded_token: "i" } },
    ]);
  });

  it("fails with E_POLICY_OUTPUT for an answer without choices", async () => {
    const { backend } = await setup([{ kind: "no-choices" }]);
    expect(
      isSpadeError(
        await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e),
        "E_POLICY_OUTPUT",
      ),
    ).toBe(true);
  });

  it("retries a refused connection and then fails with E_POLICY_HTTP", async () => {
    const probe = await startFakeOpenAIServer([]);
    const baseURL = probe.baseURL;
    await probe.close();
    const clock = fakeClock();
    const backend = openAIChatBackend({
      baseURL,
      model: "m",
      clock,
      retry: { maxRetries: 2, initialDelayMs: 10 },
    });
    const err = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_POLICY_HTTP")).toBe(true);
    expect((err as SpadeError).message).toContain(`could not reach ${baseURL}`);
    expect(clock.sleeps).toEqual([10, 20]);
  });

  it("reads the key from the named environment variable, and E_CONFIG when it is unset", async () => {
    expect(() => resolveApiKey("SPADE_TEST_MISSING_KEY", {})).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    expect(() => resolveApiKey("K", { K: "  " })).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    expect(() =>
      openAIChatBackend({
        baseURL: "http://127.0.0.1:1/v1",
        model: "m",
        apiKeyEnv: "SPADE_TEST_MISSING_KEY",
        environment: {},
      }),
    ).toThrow(
      "the environment variable SPADE_TEST_MISSING_KEY (named by apiKeyEnv / --api-key-env) is not set",
    );
    const { server, backend } = await setup([{ kind: "text", content: "x" }], {
      apiKeyEnv: "MY_KEY",
      environment: { MY_KEY: "sk-test-123" },
    });
    await backend.complete({ messages: MESSAGES });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test-123");
  });

  it("retries an answer whose connection closes mid-body, then succeeds", async () => {
    const { server, clock, backend } = await setup([
      { kind: "cut", content: "lost" },
      { kind: "text", content: "whole" },
    ]);
    const notices: string[] = [];
    const out = await openAIChatBackend({
      baseURL: server.baseURL,
      model: "m",
      clock,
      retry: { initialDelayMs: 100 },
      onRetry: (n) =>
        notices.push(
          `${n.retry}/${n.maxRetries} ${n.failure.code} ${n.failure.message.replace(/after \d+ bytes/, "after N bytes")}`,
        ),
    }).complete({ messages: MESSAGES });
    expect(out.choices[0]!.content).toBe("whole");
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([100]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      new RegExp(
        `^1/4 E_POLICY_HTTP the connection to ${server.baseURL}/chat/completions broke off after N bytes of the answer: `,
      ),
    );
    void backend;
  });

  it("codes malformed JSON E_POLICY_OUTPUT without retrying it", async () => {
    const { server, clock, backend } = await setup(() => ({ kind: "raw", body: '{"choices": [' }));
    const err = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_POLICY_OUTPUT")).toBe(true);
    expect((err as SpadeError).message).toBe(
      `${server.baseURL}/chat/completions answered HTTP 200 with a body that is not JSON: "{\\"choices\\": [" (1 attempt) (check the server's log; a proxy or a crashed worker may be cutting answers)`,
    );
    expect([server.requests.length, clock.sleeps]).toEqual([1, []]);
  });

  it("refuses an answer over maxAnswerBytes, declared or streamed, with E_POLICY_OUTPUT", async () => {
    const { server, backend } = await setup(
      [
        { kind: "large", chars: 300_000 },
        { kind: "large", chars: 300_000, chunked: true },
        { kind: "large", chars: 1_000 },
      ],
      { maxAnswerBytes: 200_000 },
    );
    const declared = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    expect(isSpadeError(declared, "E_POLICY_OUTPUT")).toBe(true);
    expect((declared as SpadeError).message).toMatch(
      /sent an answer of 300\d{3} bytes, over the cap of 200000 bytes \(1 attempt\)/,
    );
    const streamed = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    expect(isSpadeError(streamed, "E_POLICY_OUTPUT")).toBe(true);
    expect((streamed as SpadeError).message).toContain(
      "sent an answer of more than 200000 bytes, over the cap of 200000 bytes (1 attempt)",
    );
    expect((await backend.complete({ messages: MESSAGES })).choices[0]!.content).toHaveLength(
      1_000,
    );
    expect(server.requests).toHaveLength(3);
  });

  it("stops retrying when the total budget is spent, however many retries are left", async () => {
    server = await startFakeOpenAIServer(() => ({ kind: "hang" }));
    const backend = openAIChatBackend({
      baseURL: server.baseURL,
      model: "m",
      retry: { timeoutMs: 60_000, budgetMs: 400, maxRetries: 10, initialDelayMs: 50 },
    });
    const started = Date.now();
    const err = await backend.complete({ messages: MESSAGES }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(isSpadeError(err, "E_POLICY_TIMEOUT")).toBe(true);
    expect((err as SpadeError).message).toMatch(
      /\(1 attempt; the retry budget of 0.4 s is spent\)/,
    );
    expect(server.requests).toHaveLength(1);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(3_000);
  });

  it("keeps at most the limiter's capacity of requests in flight", async () => {
    const limiter = new Limiter(2);
    const seen: Array<[number, number]> = [];
    const { server, backend } = await setup(
      () => {
        seen.push([limiter.active, limiter.waiting]);
        return { kind: "slow", delayMs: 30, reply: { kind: "text", content: "x" } };
      },
      { limiter },
    );
    await Promise.all(Array.from({ length: 6 }, () => backend.complete({ messages: MESSAGES })));
    expect(server.requests).toHaveLength(6);
    // Arrivals come in pairs: each pair is sent only when the previous pair's slots free.
    expect(seen.map(([active]) => active)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(seen[0]).toEqual([2, 4]);
    expect(limiter.active).toBe(0);
  });
});
