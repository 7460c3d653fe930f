/**
 * @module test/policy-contract
 * The shared chat backend contract suite (STYLE.md point 14): every `ChatBackend` registers
 * `describeChatBackendContract` through a harness that plays each scenario; skips carry a reason.
 */
import { afterAll, expect, it } from "vitest";
import type { JsonObject, ToolSpec } from "../src/env/index.js";
import { resolveProgram } from "../src/envs/index.js";
import {
  chatAgent,
  type ChatBackend,
  type ChatChoice,
  type ChatCompletion,
  type ChatMessage,
  type SamplingParams,
} from "../src/policy/index.js";
import { runEpisode } from "../src/rollout/index.js";
import { loadProgram } from "../src/sandbox/index.js";
import { schemaProblems } from "./json-schema.js";
import { codeOfAsync } from "./assert.js";

/** The library environment both suites play. */
export const CONTRACT_ENV = "vault-cracker";

/** What the chat suite needs the backend to do in one test. */
export type ChatScenario =
  /** Answer a conversation with text. */
  | { kind: "text" }
  /** Write more than `maxTokens` tokens if let: the answer must be cut at `maxTokens`. */
  | { kind: "long"; maxTokens: number }
  /** Call a tool when offered `tools`: scripted backends return exactly `call`; constrained ones any call that fits. */
  | { kind: "tool-call"; tools: ToolSpec[]; call: { name: string; arguments: JsonObject } }
  /** Never answer (until cancelled). */
  | { kind: "hang" }
  /** Play `env` (a library environment) through the chat agent. */
  | { kind: "episode"; env: string };

/** A backend opened for one test. */
export interface OpenedChatBackend {
  backend: ChatBackend;
  /** Called after the test (stop a fake server...). */
  close?: () => Promise<void>;
}

/** The checks of the chat suite, by name (for skips and known failures). */
export type ChatCheck =
  | "text"
  | "max_tokens"
  | "max_tokens-count"
  | "tools"
  | "cancel-before"
  | "cancel-during"
  | "usage"
  | "episode";

/** How one chat backend plugs into the suite. */
export interface ChatBackendHarness {
  /** A backend that behaves as `scenario` asks. */
  open(scenario: ChatScenario): Promise<OpenedChatBackend>;
  /** `scripted`: a tool-call scenario returns exactly its call; `constrained`: any call that fits the tool schemas. */
  toolCalls: "scripted" | "constrained";
  /** Sampling parameters of every request (e.g. a seed for a local model). */
  sampling?: SamplingParams;
  /** Checks that do not apply to this backend, with the reason. */
  skip?: Partial<Record<ChatCheck, string>>;
  /** Checks this backend is known to fail, with the defect: registered with `it.fails`, so a fix shows up as a failure to update. */
  knownFailures?: Partial<Record<ChatCheck, string>>;
  /** Called once after the suite (free a model...). */
  close?: () => Promise<void>;
}

/** A tool with nested arguments (an object, an array of enums, a nullable enum), small enough for a grammar. */
export const SCENE_TOOL: ToolSpec = {
  type: "function",
  function: {
    name: "set_scene",
    description: "Set the lights of a room.",
    parameters: {
      type: "object",
      properties: {
        room: { type: "string", enum: ["hall", "den", "attic"] },
        lights: {
          type: "object",
          properties: { on: { type: "boolean" }, level: { type: "integer", enum: [0, 50, 100] } },
          required: ["on", "level"],
          additionalProperties: false,
        },
        colors: {
          type: "array",
          items: { type: "string", enum: ["red", "blue"] },
          minItems: 1,
          maxItems: 2,
        },
        mode: { type: ["string", "null"], enum: ["eco", "comfort", null] },
      },
      required: ["room", "lights", "colors"],
      additionalProperties: false,
    },
  },
};
const WAIT_TOOL: ToolSpec = {
  type: "function",
  function: {
    name: "wait",
    description: "Do nothing.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
  },
};
const SCENE_CALL = {
  name: "set_scene",
  arguments: { room: "den", lights: { on: true, level: 50 }, colors: ["blue", "red"], mode: null },
};

const MESSAGES: ChatMessage[] = [
  { role: "system", content: "You play." },
  { role: "user", content: "Hi there" },
];

/** Problems with the shape of one choice. */
function choiceProblems(choice: ChatChoice): string[] {
  const problems: string[] = [];
  if (typeof choice.content !== "string") problems.push("content is not a string");
  if (
    !Array.isArray(choice.toolCalls) ||
    !Array.isArray(choice.malformedToolCalls) ||
    !Array.isArray(choice.rawToolCalls)
  )
    problems.push("tool call lists are not arrays");
  if (choice.finishReason !== null && typeof choice.finishReason !== "string")
    problems.push("finishReason is neither a string nor null");
  const ids = choice.tokenIds;
  if (ids !== null && !(Array.isArray(ids) && ids.every(Number.isInteger)))
    problems.push("tokenIds is neither null nor integers");
  if (ids !== null && choice.logprobs !== null && choice.logprobs.length !== ids.length)
    problems.push("logprobs do not align with tokenIds");
  return problems;
}

/** Completion tokens as far as observable: from token ids and from usage (each null when not reported). */
function generatedTokens(completion: ChatCompletion): {
  byIds: number | null;
  byUsage: number | null;
} {
  const ids = completion.choices.map((c) => c.tokenIds);
  return {
    byIds: ids.every((i) => i !== null) ? ids.reduce((sum, i) => sum + i!.length, 0) : null,
    byUsage: completion.usage?.completionTokens ?? null,
  };
}

/** Registers the chat backend contract tests; call inside a `describe`. */
export function describeChatBackendContract(harness: ChatBackendHarness): void {
  const sampling = (extra: SamplingParams = {}): SamplingParams => ({
    ...harness.sampling,
    ...extra,
  });
  const check = (name: ChatCheck, title: string, fn: () => Promise<void>) => {
    const reason = harness.skip?.[name];
    const defect = harness.knownFailures?.[name];
    if (reason) it.skip(`${title} (skipped: ${reason})`, fn);
    else if (defect) it.fails(`${title} (known failure: ${defect})`, fn);
    else it(title, fn);
  };
  /** Runs `fn` on a backend opened for `scenario`, closing it afterwards. */
  const using = async (scenario: ChatScenario, fn: (backend: ChatBackend) => Promise<void>) => {
    const opened = await harness.open(scenario);
    try {
      await fn(opened.backend);
    } finally {
      await opened.close?.();
    }
  };
  afterAll(async () => harness.close?.());

  check("text", "answers a plain conversation with choices of the right shape", () =>
    using({ kind: "text" }, async (backend) => {
      const completion = await backend.complete({
        messages: MESSAGES,
        sampling: sampling({ max_tokens: 16 }),
      });
      expect(completion.choices.length).toBeGreaterThanOrEqual(1);
      expect(completion.choices.flatMap(choiceProblems)).toEqual([]);
      expect(completion.choices[0]!.malformedToolCalls).toEqual([]);
      expect(typeof backend.model).toBe("string");
    }),
  );

  check(
    "max_tokens",
    "honours max_tokens: an answer that would run longer stops with finish reason `length`, within max_tokens",
    () =>
      using({ kind: "long", maxTokens: 4 }, async (backend) => {
        const completion = await backend.complete({
          messages: MESSAGES,
          sampling: sampling({ max_tokens: 4 }),
        });
        expect(completion.choices[0]!.finishReason).toBe("length");
        const { byIds, byUsage } = generatedTokens(completion);
        expect([(byIds ?? 4) <= 4, (byUsage ?? 4) <= 4]).toEqual([true, true]);
      }),
  );

  check(
    "max_tokens-count",
    "reports exactly max_tokens generated tokens (ids and usage) for an answer cut at max_tokens",
    () =>
      using({ kind: "long", maxTokens: 4 }, async (backend) => {
        const completion = await backend.complete({
          messages: MESSAGES,
          sampling: sampling({ max_tokens: 4 }),
        });
        const { byIds, byUsage } = generatedTokens(completion);
        expect([completion.choices[0]!.finishReason, byIds ?? 4, byUsage ?? 4]).toEqual([
          "length",
          4,
          4,
        ]);
      }),
  );

  check(
    "tools",
    "passes tools and returns the parsed call with nested arguments intact, then takes its result",
    () =>
      using(
        { kind: "tool-call", tools: [SCENE_TOOL, WAIT_TOOL], call: SCENE_CALL },
        async (backend) => {
          const tools = [SCENE_TOOL, WAIT_TOOL];
          const choice = (
            await backend.complete({
              messages: MESSAGES,
              tools,
              sampling: sampling({ max_tokens: 400 }),
            })
          ).choices[0]!;
          expect(choice.finishReason).toBe("tool_calls");
          expect(choice.malformedToolCalls).toEqual([]);
          expect(choice.toolCalls).toHaveLength(1);
          const call = choice.toolCalls[0]!;
          expect(call.id).toMatch(/^\S+$/);
          if (harness.toolCalls === "scripted")
            expect({ name: call.name, arguments: call.arguments }).toEqual(SCENE_CALL);
          const tool = tools.find((t) => t.function.name === call.name);
          expect(tool?.function.name).toBe(call.name);
          expect(schemaProblems(call.arguments, tool!.function.parameters)).toEqual([]);
          const followUp: ChatMessage[] = [
            ...MESSAGES,
            {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                },
              ],
            },
            { role: "tool", tool_call_id: call.id, content: "done" },
          ];
          const next = await backend.complete({
            messages: followUp,
            tools,
            sampling: sampling({ max_tokens: 400 }),
          });
          expect(next.choices.flatMap(choiceProblems)).toEqual([]);
        },
      ),
  );

  check("cancel-before", "rejects with E_CANCELLED when the signal is already aborted", () =>
    using({ kind: "text" }, async (backend) => {
      expect(
        await codeOfAsync(
          backend.complete({
            messages: MESSAGES,
            sampling: sampling({ max_tokens: 4 }),
            signal: AbortSignal.abort(),
          }),
        ),
      ).toBe("E_CANCELLED");
    }),
  );

  check("cancel-during", "rejects with E_CANCELLED when the signal is aborted while waiting", () =>
    using({ kind: "hang" }, async (backend) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      expect(
        await codeOfAsync(
          backend.complete({
            messages: MESSAGES,
            sampling: sampling({ max_tokens: 4 }),
            signal: controller.signal,
          }),
        ),
      ).toBe("E_CANCELLED");
    }),
  );

  check(
    "usage",
    "reports usage: integer counts that match the generated tokens and grow with the prompt",
    () =>
      using({ kind: "text" }, async (backend) => {
        const short = await backend.complete({
          messages: MESSAGES,
          sampling: sampling({ max_tokens: 8 }),
        });
        const long = await backend.complete({
          messages: [
            ...MESSAGES,
            { role: "assistant", content: "Hello." },
            { role: "user", content: "Tell me more, please." },
          ],
          sampling: sampling({ max_tokens: 8 }),
        });
        for (const usage of [short.usage, long.usage]) {
          expect(usage).not.toBeNull();
          expect([
            Number.isInteger(usage!.promptTokens),
            Number.isInteger(usage!.completionTokens),
            usage!.promptTokens > 0,
            usage!.completionTokens >= 0,
          ]).toEqual([true, true, true, true]);
        }
        const { byIds, byUsage } = generatedTokens(short);
        if (byIds !== null) expect(byUsage).toBe(byIds);
        expect(long.usage!.promptTokens).toBeGreaterThan(short.usage!.promptTokens);
      }),
  );

  check(
    "episode",
    `plays ${CONTRACT_ENV} through chatAgent and runEpisode without a failure of the agent's own making`,
    () =>
      using({ kind: "episode", env: CONTRACT_ENV }, async (backend) => {
        const env = await loadProgram(resolveProgram(CONTRACT_ENV).source);
        try {
          const agent = chatAgent({ backend, sampling: sampling({ max_tokens: 16 }) });
          const episode = await runEpisode(env, agent, { seed: 0 });
          expectPlayed(episode, env.meta.maxTurns);
          expect(episode.trace?.model).toBe(backend.model);
          expect(episode.trace?.samplesByTurn).toHaveLength(episode.turns);
          expect(episode.trace?.messages.map((m) => m.role)).toEqual([
            "system",
            ...Array.from({ length: episode.turns }, () => ["user", "assistant"]).flat(),
          ]);
        } finally {
          await env.close();
        }
      }),
  );
}

/** Asserts that an episode ended without failure, by success or at the turn limit. */
export function expectPlayed(
  episode: Awaited<ReturnType<typeof runEpisode>>,
  maxTurns: number,
): void {
  expect([episode.failure, episode.failureStage]).toEqual([null, null]);
  expect(episode.success || episode.turns === maxTurns).toBe(true);
  expect(episode.turns).toBeGreaterThanOrEqual(1);
}
