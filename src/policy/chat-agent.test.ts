import { afterEach, describe, expect, it } from "vitest";
import type { Action, StepResult, ToolSpec } from "../env/index.js";
import { makeTestEnv } from "../env/testing/test-env.js";
import { resolveProgram } from "../envs/index.js";
import {
  type Episode,
  MALFORMED_TOOL_CALL_OBSERVATION,
  oracleAgent,
  runEpisode,
} from "../rollout/index.js";
import { loadProgram } from "../sandbox/index.js";
import {
  fakeLogprob,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeReply,
  type FakeScript,
} from "../../test/fakes/openai-server.js";
import { chatAgent, DEFAULT_SYSTEM_PROMPT, type ChatAgentOptions } from "./chat-agent.js";
import { openAIChatBackend, type OpenAIChatOptions } from "./openai.js";
import { INSTANT_CLOCK } from "./testing/clock.js";
import { assistantCalls, LOOKUP_TOOL } from "./testing/tools.js";
import { OVERFLOWED_AT_TURN_1 } from "../rollout/testing/outcomes.js";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function agentFor(
  script: FakeScript,
  backendOptions: Partial<OpenAIChatOptions> = {},
  agentOptions: Partial<ChatAgentOptions> = {},
) {
  server = await startFakeOpenAIServer(script);
  const backend = openAIChatBackend({
    baseURL: server.baseURL,
    model: "fake-model",
    clock: INSTANT_CLOCK,
    retry: { maxRetries: 1 },
    ...backendOptions,
  });
  return { server, backend, agent: chatAgent({ backend, ...agentOptions }) };
}

/** A test env with one tool: calls get results and an empty observation; a boxed 42 wins. */
function toolEnv() {
  return makeTestEnv({
    meta: { tools: [LOOKUP_TOOL], maxTurns: 4 },
    reset: () => ({ observation: "Find the number.", info: {} }),
    step: (action: Action): StepResult => {
      if (action.toolCalls.length > 0) {
        return {
          observation: "",
          reward: 0,
          terminated: false,
          truncated: false,
          info: {},
          toolResults: action.toolCalls.map((c) => ({
            id: c.id,
            content: `value of ${JSON.stringify(c.arguments)} is 42`,
          })),
        };
      }
      const win = action.answer === "42";
      return {
        observation: win ? "Correct!" : "Wrong.",
        reward: win ? 1 : 0,
        terminated: win,
        truncated: false,
        info: {},
      };
    },
  });
}

/** The episode ended after `turns` turns by the agent's failure `code`. */
function expectAgentFailure(episode: Episode, turns: number, code: string): void {
  expect(episode).toMatchObject({
    turns,
    failureStage: "agent",
    failureCode: code,
    success: false,
  });
}

describe("chatAgent", () => {
  it("builds the conversation: system, observation, assistant tool calls, tool messages, next observation", async () => {
    const { server, agent } = await agentFor([
      {
        kind: "tool_calls",
        content: "Looking.",
        calls: [
          { id: "c1", name: "lookup", arguments: '{"key": {"path": ["a", "b"]}}' },
          { id: "c2", name: "lookup", arguments: '{"key": {}}' },
        ],
      },
      { kind: "text", content: "It is \\boxed{41}." },
      { kind: "text", content: "Then \\boxed{42}." },
    ]);
    const episode = await runEpisode(toolEnv(), agent, { seed: 0 });
    expect(episode).toMatchObject({
      return: 1,
      success: true,
      turns: 3,
      failure: null,
      failureStage: null,
      failureCode: null,
    });
    expect(episode.steps[0]!.action.toolCalls).toEqual([
      { id: "c1", name: "lookup", arguments: { key: { path: ["a", "b"] } } },
      { id: "c2", name: "lookup", arguments: { key: {} } },
    ]);
    expect(agent.messages).toEqual([
      { role: "system", content: DEFAULT_SYSTEM_PROMPT },
      { role: "user", content: "Find the number." },
      assistantCalls(
        "Looking.",
        ["c1", "lookup", '{"key": {"path": ["a", "b"]}}'],
        ["c2", "lookup", '{"key": {}}'],
      ),
      // The empty observation is skipped: the tool results carry the content.
      { role: "tool", tool_call_id: "c1", content: 'value of {"key":{"path":["a","b"]}} is 42' },
      { role: "tool", tool_call_id: "c2", content: 'value of {"key":{}} is 42' },
      { role: "assistant", content: "It is \\boxed{41}." },
      { role: "user", content: "Wrong." },
      { role: "assistant", content: "Then \\boxed{42}." },
    ]);
    // Each request carried the conversation up to that turn, and the tools.
    expect(server.requests.map((r) => r.body.messages.length)).toEqual([2, 5, 7]);
    expect(server.requests[2]!.body.messages).toEqual(agent.messages.slice(0, 7));
    expect(server.requests[0]!.body.tools).toEqual([LOOKUP_TOOL]);
    expect(episode.trace?.messages).toEqual(agent.messages);
    expect(episode.trace?.model).toBe("fake-model");
  });

  it("moves <tool_call> text into tool_calls so tool messages answer a real call", async () => {
    const { agent } = await agentFor([
      {
        kind: "text",
        content:
          'Checking.\n<tool_call>{"name": "lookup", "arguments": {"key": {"n": 1}}}</tool_call>',
      },
      { kind: "text", content: "\\boxed{42}" },
    ]);
    const episode = await runEpisode(toolEnv(), agent, { seed: 0 });
    expect(episode.success).toBe(true);
    expect(episode.steps[0]!.action).toEqual({
      text: 'Checking.\n<tool_call>{"name": "lookup", "arguments": {"key": {"n": 1}}}</tool_call>',
      answer: null,
      toolCalls: [{ id: "call_0", name: "lookup", arguments: { key: { n: 1 } } }],
    });
    expect(agent.messages.slice(2, 4)).toEqual([
      assistantCalls("Checking.", ["call_0", "lookup", '{"key":{"n":1}}']),
      { role: "tool", tool_call_id: "call_0", content: 'value of {"key":{"n":1}} is 42' },
    ]);
  });

  it("answers calls the environment left unanswered, so strict servers accept the conversation", async () => {
    const env = makeTestEnv({
      meta: { tools: [LOOKUP_TOOL] },
      step: () => ({
        observation: "Nothing happened.",
        reward: 0,
        terminated: false,
        truncated: false,
        info: {},
      }),
    });
    const { agent } = await agentFor([
      { kind: "tool_calls", calls: [{ id: "x9", name: "lookup", arguments: "{}" }] },
      { kind: "text", content: "done" },
    ]);
    await runEpisode(env, agent, { seed: 0 });
    expect(agent.messages.slice(3, 5)).toEqual([
      { role: "tool", tool_call_id: "x9", content: "no result was returned for this call" },
      { role: "user", content: "Nothing happened." },
    ]);
  });

  it("records malformed tool-call JSON as an E_POLICY_TOOL_CALL failure of the episode (failures: drop), keeping the raw answer", async () => {
    const { agent } = await agentFor([
      { kind: "tool_calls", calls: [{ id: "c1", name: "lookup", arguments: '{"key": ' }] },
    ]);
    const episode = await runEpisode(toolEnv(), agent, { seed: 0 });
    expect(episode).toMatchObject({
      success: false,
      turns: 0,
      outcome: "dropped",
      failureStage: "agent",
      failureCode: "E_POLICY_TOOL_CALL",
    });
    expect(episode.failure).toMatch(
      /^agent: E_POLICY_TOOL_CALL: the model wrote 1 tool call\(s\) that are not valid JSON/,
    );
    expect(episode.trace?.messages[2]).toEqual(assistantCalls(null, ["c1", "lookup", '{"key": ']));
  });

  it("answers a malformed tool call with an error and goes on (failures: reference, the reference's way), the turn masked", async () => {
    const { server, agent } = await agentFor([
      { kind: "tool_calls", calls: [{ id: "c1", name: "lookup", arguments: '{"key": ' }] },
      { kind: "text", content: "Then \\boxed{42}." },
    ]);
    const episode = await runEpisode(toolEnv(), agent, { seed: 0, failures: "reference" });
    expect(episode).toMatchObject({
      success: true,
      return: 1,
      turns: 2,
      outcome: "terminated",
      maskedTurns: [0],
      failure: null,
    });
    expect(episode.steps[0]).toMatchObject({
      masked: true,
      reward: 0,
      observation: MALFORMED_TOOL_CALL_OBSERVATION,
    });
    expect(episode.trace?.samplesByTurn.map((s) => s.masked ?? false)).toEqual([true, false]);
    // The unanswered call is closed with a tool message, then the error is the next user message.
    expect(server.requests[1]?.body.messages.slice(3)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "no result was returned for this call" },
      { role: "user", content: MALFORMED_TOOL_CALL_OBSERVATION },
    ]);
  });

  /** An agent answering \boxed{5} under a 40-token prompt budget: turn 1 would pass it. */
  const agentOverBudgetAtTurn1 = () =>
    agentFor(
      () => ({ kind: "text", content: "\\boxed{5}" }),
      {},
      { systemPrompt: "S", maxPromptTokens: 40 },
    );

  it("ends the episode with E_POLICY_CONTEXT when the prompt would outgrow the budget", async () => {
    // Server usage: prompt tokens = characters of the joined contents; completion = answer characters.
    const { server, agent } = await agentOverBudgetAtTurn1();
    const episode = await runEpisode(makeTestEnv(), agent, { seed: 0 });
    // Turn 0 estimate: (4 + ceil(1/4)) + (4 + ceil(42/4)) = 5 + 15 = 20 <= 40: sent.
    // Turn 1: the server counted 44 prompt + 9 answer tokens, plus the estimate of the new
    // observation "higher" (4 + ceil(6/4) = 6): 59 > 40: not sent.
    expect(server.requests).toHaveLength(1);
    expectAgentFailure(episode, 1, "E_POLICY_CONTEXT");
    expect(episode.failure).toBe(
      "agent: E_POLICY_CONTEXT: the conversation needs about 59 prompt tokens at turn 1, over the budget of 40 (raise maxPromptTokens, or give the environment fewer turns)",
    );
  });

  it("ends an overflowing episode as truncated with return 0 under failures: reference; it is not dropped", async () => {
    const { agent } = await agentOverBudgetAtTurn1();
    const episode = await runEpisode(makeTestEnv(), agent, { seed: 0, failures: "reference" });
    expect(episode).toMatchObject({ ...OVERFLOWED_AT_TURN_1, maskedTurns: [] });
  });

  it("records an HTTP failure after retries as the episode's failure", async () => {
    const { server, agent } = await agentFor(() => ({ kind: "status", status: 503 }));
    const episode = await runEpisode(makeTestEnv(), agent, { seed: 0 });
    expect(server.requests).toHaveLength(2);
    expectAgentFailure(episode, 0, "E_POLICY_HTTP");
  });

  it("keeps token ids and logprobs per turn", async () => {
    const { agent } = await agentFor(
      [
        { kind: "text", content: "\\boxed{1}" },
        { kind: "text", content: "ok" },
      ],
      { logprobs: true, returnTokenIds: true },
      { systemPrompt: "S" },
    );
    await runEpisode(makeTestEnv({ meta: { maxTurns: 2 } }), agent, { seed: 0 });
    const [first, second] = agent.samplesByTurn;
    expect(first).toMatchObject({
      turn: 0,
      tokenIds: Array.from("\\boxed{1}", (c) => c.codePointAt(0)),
      finishReason: "stop",
      usage: { promptTokens: 44, completionTokens: 9 },
    });
    expect(first!.logprobs).toEqual(Array.from({ length: 9 }, (_, i) => fakeLogprob(i)));
    expect(first!.promptTokenIds).toEqual(
      Array.from("S\nGuess a number from 10 to 99 as \\boxed{n}.", (c) => c.codePointAt(0)),
    );
    expect(second).toMatchObject({ turn: 1, tokenIds: [111, 107], tokens: ["o", "k"] });
  });
});

describe("chatAgent: no system prompt, tools that grow during the episode", () => {
  it("sends no system message when systemPrompt is null", async () => {
    const { server, agent } = await agentFor(
      [{ kind: "text", content: "\\boxed{42}" }],
      {},
      { systemPrompt: null },
    );
    const episode = await runEpisode(toolEnv(), agent, { seed: 0 });
    expect(episode.success).toBe(true);
    expect(server.requests[0]!.body.messages).toEqual([
      { role: "user", content: "Find the number." },
    ]);
  });

  it("offers currentTools() when the environment has it, so tools added mid-episode reach the model", async () => {
    const EXTRA: ToolSpec = {
      type: "function",
      function: {
        name: "extra",
        description: "added later",
        parameters: { type: "object", properties: {} },
      },
    };
    const env = toolEnv();
    let tools: ToolSpec[] = [LOOKUP_TOOL];
    const growing = Object.assign(env, { currentTools: () => tools });
    const { server, agent } = await agentFor([
      { kind: "text", content: "\\boxed{1}" },
      { kind: "text", content: "\\boxed{42}" },
    ]);
    const first = await growing.reset(0);
    await agent({ env: growing, observation: first.observation, toolResults: [], turn: 0 });
    tools = [LOOKUP_TOOL, EXTRA];
    await agent({ env: growing, observation: "Wrong.", toolResults: [], turn: 1 });
    expect(server.requests.map((r) => r.body.tools.map((t: ToolSpec) => t.function.name))).toEqual([
      ["lookup"],
      ["lookup", "extra"],
    ]);
  });
});

describe("chatAgent on library environments (sandboxed), replaying the oracle through the fake server", () => {
  /** Plays the oracle once to learn its actions, then scripts the fake model to say the same. */
  async function replay(name: string, seed: number) {
    const env = await loadProgram(resolveProgram(name).source);
    try {
      const oracle = await runEpisode(env, oracleAgent, { seed });
      const replies: FakeReply[] = oracle.steps.map((s, turn) =>
        s.action.toolCalls.length > 0
          ? {
              kind: "tool_calls",
              content: s.action.text || null,
              calls: s.action.toolCalls.map((c, i) => ({
                id: `t${turn}_${i}`,
                name: c.name,
                arguments: JSON.stringify(c.arguments),
              })),
            }
          : { kind: "text", content: s.action.text },
      );
      const { agent, server } = await agentFor(replies);
      const played = await runEpisode(env, agent, { seed });
      return { oracle, played, agent, server, tools: env.meta.tools };
    } finally {
      await env.close();
    }
  }

  it("vault-cracker: same observations and rewards as the oracle, success", async () => {
    const { oracle, played, agent } = await replay("vault-cracker", 11);
    expect(played).toMatchObject({ success: true, failure: null, turns: oracle.turns });
    expect(played.steps.map((s) => [s.observation, s.reward])).toEqual(
      oracle.steps.map((s) => [s.observation, s.reward]),
    );
    expect(agent.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      oracle.firstObservation,
      ...oracle.steps.slice(0, -1).map((s) => s.observation),
    ]);
  });

  it("bank-transfer: nested tool arguments reach the environment intact; tool results carry the call ids", async () => {
    const { oracle, played, agent, server, tools } = await replay("bank-transfer", 3);
    expect(played).toMatchObject({ success: true, failure: null, turns: oracle.turns });
    expect(played.steps.map((s) => s.action.toolCalls.map((c) => [c.name, c.arguments]))).toEqual(
      oracle.steps.map((s) => s.action.toolCalls.map((c) => [c.name, c.arguments])),
    );
    const transfer = played.steps
      .flatMap((s) => s.action.toolCalls)
      .find((c) => c.name === "transfer");
    expect(transfer?.arguments).toMatchObject({
      to: { iban: expect.any(String), name: expect.any(String) },
      amount: { currency: "EUR" },
    });
    const toolMessages = agent.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(
      played.steps.flatMap((s) => s.toolResults.map((r) => r.id)).slice(0, toolMessages.length),
    );
    expect(toolMessages[0]).toMatchObject({ tool_call_id: "t0_0" });
    expect(server.requests[0]!.body.tools).toEqual(tools);
  });
});
