import { afterEach, describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import type { Action, Env, Json } from "../env/index.js";
import { resolveProgram } from "../envs/index.js";
import { oracleAgent, runEpisode } from "../rollout/index.js";
import { loadProgram } from "../sandbox/index.js";
import { TINY, writeTinyModel } from "../../test/fakes/tiny-model.js";
import type {
  FakeFault,
  FakeSampleResult,
  FakeTinkerServer,
} from "../../test/fakes/tinker-server.js";
import { ChatRenderer } from "./render/index.js";
import { tokenAgent, type TokenAgentOptions, type TokenTrace } from "./token-agent.js";
import { fakeTinkerSampler } from "./testing/fake-tinker.js";

const ENV = "inventory-query";
const SEED = 1;

/** JSON as Python's json.dumps (and the template's tojson) writes it: ", " and ": " separators. */
function pythonJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`)
      .join(", ")}}`;
  return JSON.stringify(value);
}

/** What the fake model writes for an oracle action: its text, or its calls as Hermes `<tool_call>` blocks. */
function assistantText(action: Action): string {
  const calls = action.toolCalls.map(
    (c) =>
      `<tool_call>\n{"name": "${c.name}", "arguments": ${pythonJson(c.arguments)}}\n</tool_call>`,
  );
  return [action.text, ...calls].filter((s) => s !== "").join("\n");
}

/** The fake logprob of sampled token i of turn t. */
const logprobOf = (t: number, i: number) => -(t * 1000 + i + 1) / 1024;

const tinyModelDir = tempDirsAfterEach("spade-tiny-");
let server: FakeTinkerServer | undefined;
let env: Env | undefined;
afterEach(async () => {
  await server?.close();
  await env?.close();
  server = env = undefined;
});

async function oracleActions(): Promise<Action[]> {
  const oracleEnv = await loadProgram(resolveProgram(ENV).source);
  try {
    return (await runEpisode(oracleEnv, oracleAgent, { seed: SEED })).steps.map((s) => s.action);
  } finally {
    await oracleEnv.close();
  }
}

/** A fake Tinker server that answers turn t with `replies[t]`, and a token agent playing through it. */
async function setup(
  replies: (renderer: ChatRenderer) => number[][],
  faults: FakeFault[] = [],
  agent: Partial<TokenAgentOptions> = {},
) {
  const renderer = ChatRenderer.fromDir(writeTinyModel(tinyModelDir()));
  const byTurn = replies(renderer);
  let turn = 0;
  const sample = (): FakeSampleResult => {
    const t = turn++;
    const tokens = byTurn[t] ?? [TINY.imEnd];
    return {
      sequences: [{ tokens, logprobs: tokens.map((_, i) => logprobOf(t, i)), stop_reason: "stop" }],
    };
  };
  const fake = await fakeTinkerSampler({ sample, tryAgainPolls: 1, faults });
  server = fake.server;
  const sampler = fake.sampler;
  env = await loadProgram(resolveProgram(ENV).source);
  const agentOptions: TokenAgentOptions = { sampler, renderer, systemPrompt: "Play.", ...agent };
  return { renderer, byTurn, env, server, agent: tokenAgent(agentOptions), agentOptions };
}

describe("tokenAgent over a Tinker-compatible server", () => {
  it("plays a library tool-use episode and records exactly the sampled tokens and logprobs", async () => {
    const oracle = await oracleActions();
    const faults = [
      { path: "/api/v1/asample", status: 429, headers: { "retry-after": "0" } },
      { path: "/api/v1/retrieve_future", status: 502 },
    ];
    const { renderer, byTurn, env, server, agent } = await setup(
      (r) => oracle.map((a) => [...r.encode(assistantText(a)), TINY.imEnd]),
      faults,
    );
    const episode = await runEpisode(env, agent, { seed: SEED });
    expect(episode).toMatchObject({ success: true, return: 1, turns: 3, failure: null });
    expect(episode.steps.map((s) => s.action.toolCalls.map((c) => [c.name, c.arguments]))).toEqual(
      oracle.map((a) => a.toolCalls.map((c) => [c.name, c.arguments])),
    );
    expect(episode.steps[2]!.action.answer).toBe(oracle[2]!.answer);

    const trace = episode.trace as TokenTrace;
    const { tokenIds, lossMask, logprobs } = trace.stream;
    expect(trace.turns.map((t) => t.responseTokenIds)).toEqual(byTurn);
    expect(trace.turns.map((t) => t.logprobs)).toEqual(
      byTurn.map((ids, t) => ids.map((_, i) => logprobOf(t, i))),
    );
    // The prompt sent at turn t is the stream up to that turn; the stop ids include end-of-turn.
    const sent = server
      .requestsTo("/api/v1/asample")
      .filter(
        (r, i, all) =>
          i === all.length - 1 ||
          r.headers["x-idempotency-key"] !== all[i + 1]!.headers["x-idempotency-key"],
      );
    expect(sent.map((r) => r.body.prompt.chunks[0].tokens)).toEqual(
      trace.turns.map((t) => tokenIds.slice(0, t.promptLength)),
    );
    expect(sent.map((r) => r.body.sampling_params.stop)).toEqual([
      [TINY.imEnd],
      [TINY.imEnd],
      [TINY.imEnd],
    ]);
    // Loss mask 1 exactly on sampled ids, with their logprobs; 0 elsewhere.
    const sampledAt = new Map<number, number>();
    trace.turns.forEach((t, turn) =>
      t.responseTokenIds.forEach((_, i) => sampledAt.set(t.promptLength + i, logprobOf(turn, i))),
    );
    expect(lossMask).toEqual(tokenIds.map((_, i) => (sampledAt.has(i) ? 1 : 0)));
    expect(logprobs).toEqual(tokenIds.map((_, i) => sampledAt.get(i) ?? 0));
    // Rendering the whole conversation at the end gives exactly the accumulated tokens.
    const oneShot = renderer.renderTokens(trace.messages, {
      tools: env.meta.tools,
      addGenerationPrompt: false,
    });
    expect(oneShot[oneShot.length - 1]).toBe(10);
    expect(tokenIds).toEqual(oneShot.slice(0, -1));
    expect(trace.prefixStable).toBe(true);
    // Tool results went back as tool messages; argument text is kept as the model wrote it.
    expect(
      trace.messages
        .filter((m) => m.role === "tool")
        .map((m) => m.role === "tool" && m.tool_call_id),
    ).toEqual(["call_0", "call_0"]);
    expect(trace.turns[0]!.toolCalls).toEqual([
      {
        id: "call_0",
        name: oracle[0]!.toolCalls[0]!.name,
        argumentsText: pythonJson(oracle[0]!.toolCalls[0]!.arguments),
      },
    ]);
    expect(trace.samplesByTurn.map((s) => [s.finishReason, s.usage?.completionTokens])).toEqual(
      byTurn.map((ids) => ["stop", ids.length]),
    );
  });

  it("ends the episode with E_POLICY_CONTEXT when the prompt fills the token budget", async () => {
    const { env, server, agent } = await setup(() => [], [], { maxContextTokens: 64 });
    const episode = await runEpisode(env, agent, { seed: SEED });
    expect(episode).toMatchObject({
      success: false,
      turns: 0,
      failureStage: "agent",
      failureCode: "E_POLICY_CONTEXT",
    });
    expect(server.requestsTo("/api/v1/asample")).toHaveLength(0);
  });

  it("caps max_tokens at what is left of the budget", async () => {
    const { env, server, agent } = await setup(
      (r) => [[...r.encode("\\boxed{x}"), TINY.imEnd]],
      [],
      { maxContextTokens: 2_000, maxTokens: 4_000 },
    );
    await runEpisode(env, agent, { seed: SEED });
    const [first] = server.requestsTo("/api/v1/asample");
    expect(first!.body.sampling_params.max_tokens).toBe(
      2_000 - first!.body.prompt.chunks[0].tokens.length,
    );
  });

  // Reference: spade/core/orchestrator.py play_game_async, min_generation_tokens = 64:
  // `if tokens_remaining <= 64: truncated`, else max_tokens = min(actor_max_tokens, remaining - 64).
  it("keeps reserveTokens of the budget free: no turn with 64 or fewer left, answers stop 64 short", async () => {
    const first = await setup((r) => [[...r.encode("\\boxed{x}"), TINY.imEnd]]);
    await runEpisode(first.env, first.agent, { seed: SEED });
    const prompt = first.server.requestsTo("/api/v1/asample")[0]!.body.prompt.chunks[0].tokens
      .length as number;
    await first.server.close();
    await first.env.close();
    const cases: Array<[number, number | null]> = [
      [prompt + 64, null],
      [prompt + 65, 1],
      [prompt + 64 + 100, 100],
      [prompt + 64 + 5_000, 4_000],
    ];
    for (const [maxContextTokens, maxTokens] of cases) {
      const { env, server, agent } = await setup(
        (r) => [[...r.encode("\\boxed{x}"), TINY.imEnd]],
        [],
        { maxContextTokens, maxTokens: 4_000, reserveTokens: 64 },
      );
      const episode = await runEpisode(env, agent, { seed: SEED });
      const requests = server.requestsTo("/api/v1/asample");
      if (maxTokens === null) {
        expect(episode).toMatchObject({ turns: 0, failureCode: "E_POLICY_CONTEXT" });
        expect(requests).toHaveLength(0);
      } else {
        expect(requests[0]!.body.sampling_params.max_tokens).toBe(maxTokens);
      }
      await server.close();
      await env.close();
    }
    expect(() => tokenAgent({ ...first.agentOptions, reserveTokens: -1 })).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });

  it("records malformed tool-call output as an E_POLICY_TOOL_CALL failure (failures: drop), keeping the sampled turn", async () => {
    const { env, agent } = await setup((r) => [
      [
        ...r.encode('<tool_call>\n{"name": "get_item", "arguments": {oops}\n</tool_call>'),
        TINY.imEnd,
      ],
    ]);
    const episode = await runEpisode(env, agent, { seed: SEED });
    expect(episode).toMatchObject({
      turns: 0,
      failureStage: "agent",
      failureCode: "E_POLICY_TOOL_CALL",
    });
    expect((episode.trace as TokenTrace).turns[0]!.malformedToolCalls).toEqual([
      '{"name": "get_item", "arguments": {oops}',
    ]);
  });

  it("masks a malformed tool-call turn's sampled tokens out of the stream and goes on (failures: reference)", async () => {
    const { env, agent } = await setup((r) => [
      [
        ...r.encode('<tool_call>\n{"name": "get_item", "arguments": {oops}\n</tool_call>'),
        TINY.imEnd,
      ],
      [...r.encode("\\boxed{x}"), TINY.imEnd],
    ]);
    const episode = await runEpisode(env, agent, { seed: SEED, failures: "reference" });
    expect(episode).toMatchObject({ turns: 2, maskedTurns: [0], failure: null });
    const trace = episode.trace as TokenTrace;
    const [first, second] = trace.turns;
    const span = (t: typeof first) =>
      trace.stream.lossMask.slice(t!.promptLength, t!.promptLength + t!.responseTokenIds.length);
    // Turn 0 sampled tokens are masked (0), turn 1's are trained (1); nothing else is 1.
    expect(span(first)).toEqual(first!.responseTokenIds.map(() => 0));
    expect(span(second)).toEqual(second!.responseTokenIds.map(() => 1));
    expect(trace.stream.lossMask.filter((m) => m === 1)).toHaveLength(
      second!.responseTokenIds.length,
    );
    expect(trace.samplesByTurn.map((s) => s.masked ?? false)).toEqual([true, false]);
  });

  it("records a server that fails the request as an E_POLICY_HTTP failure", async () => {
    const { env, agent } = await setup(
      () => [],
      [{ path: "/api/v1/create_sampling_session", status: 400 }],
    );
    const episode = await runEpisode(env, agent, { seed: SEED });
    expect(episode).toMatchObject({
      turns: 0,
      failureStage: "agent",
      failureCode: "E_POLICY_HTTP",
    });
  });
});
