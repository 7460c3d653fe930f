import { describe, expect, it } from "vitest";
import { SpadeError } from "../errors.js";
import { makeAction } from "../env/index.js";
import { makeTestEnv } from "../env/testing/test-env.js";
import { MalformedToolCallError } from "../policy/index.js";
import { oracleAgent, randomAgent } from "./agents.js";
import { MALFORMED_TOOL_CALL_OBSERVATION, runEpisode, turnLimit, type Agent } from "./episode.js";
import { OVERFLOWED_AT_TURN_1 } from "./testing/outcomes.js";

describe("runEpisode", () => {
  it("plays the oracle to success and records the transcript", async () => {
    const env = makeTestEnv();
    const episode = await runEpisode(env, oracleAgent, { seed: 3 });
    // seed 3 -> secret 10 + (3 * 37 + 11) % 90 = 42
    expect(episode).toMatchObject({
      seed: 3,
      hinted: false,
      return: 1,
      success: true,
      turns: 1,
      failure: null,
    });
    expect(episode.steps[0]?.action.answer).toBe("42");
    expect(episode.firstObservation).toBe("Guess a number from 10 to 99 as \\boxed{n}.");
  });

  it("adds the hint to the first observation with the template", async () => {
    const env = makeTestEnv();
    const plain = await runEpisode(env, oracleAgent, { seed: 3, hinted: true });
    expect(plain.firstObservation).toBe(
      "Guess a number from 10 to 99 as \\boxed{n}.\n\nHINT: The number is 42.",
    );
    const custom = await runEpisode(env, oracleAgent, {
      seed: 3,
      hinted: true,
      hintTemplate: "[{hint}] {observation}",
    });
    expect(custom.firstObservation).toBe(
      "[The number is 42.] Guess a number from 10 to 99 as \\boxed{n}.",
    );
  });

  it("stops at maxTurns without success", async () => {
    const env = makeTestEnv({ meta: { maxTurns: 3 } });
    const wrong: Agent = async () => makeAction("\\boxed{5}");
    const episode = await runEpisode(env, wrong, { seed: 0 });
    expect(episode).toMatchObject({ turns: 3, return: 0, success: false, failure: null });
    expect(episode.steps.map((s) => s.observation)).toEqual(["higher", "higher", "higher"]);
  });

  it("records environment and agent failures with their stage, never as a normal score", async () => {
    const env = makeTestEnv({
      step: () => {
        throw new SpadeError("E_SANDBOX_TIMEOUT", "step ran past 200 ms");
      },
    });
    const crashed = await runEpisode(env, oracleAgent, { seed: 0 });
    expect(crashed.failure).toBe("step: E_SANDBOX_TIMEOUT: step ran past 200 ms");
    expect(crashed.success).toBe(false);
    const broken: Agent = async () => {
      throw new SpadeError("E_CONFIG", "no model");
    };
    expect((await runEpisode(makeTestEnv(), broken, { seed: 0 })).failure).toBe(
      "agent: E_CONFIG: no model",
    );
    const success = await runEpisode(
      makeTestEnv({
        step: () => ({ observation: "", reward: 1, terminated: false, truncated: false, info: {} }),
        meta: { maxTurns: 2 },
      }),
      async () => {
        throw new Error("x");
      },
      { seed: 0 },
    );
    expect(success).toMatchObject({ failure: "agent: x", success: false, turns: 0 });
  });

  it("records the failing stage and error code, stops when cancelled, and keeps an agent's trace", async () => {
    const timeout = await runEpisode(
      makeTestEnv({
        reset: () => {
          throw new SpadeError("E_SANDBOX_TIMEOUT", "reset ran past 500 ms");
        },
      }),
      oracleAgent,
      { seed: 0 },
    );
    expect(timeout).toMatchObject({
      failureStage: "reset",
      failureCode: "E_SANDBOX_TIMEOUT",
      turns: 0,
    });
    const uncoded = await runEpisode(
      makeTestEnv(),
      async () => {
        throw new Error("plain");
      },
      { seed: 0 },
    );
    expect(uncoded).toMatchObject({
      failure: "agent: plain",
      failureStage: "agent",
      failureCode: null,
    });
    const controller = new AbortController();
    const cancelling: Agent = async () => {
      controller.abort();
      return makeAction("\\boxed{5}");
    };
    const cancelled = await runEpisode(makeTestEnv(), cancelling, {
      seed: 0,
      signal: controller.signal,
    });
    expect(cancelled).toMatchObject({
      turns: 1,
      failure: "agent: E_CANCELLED: the episode was cancelled",
      failureCode: "E_CANCELLED",
      success: false,
    });
    const traced: Agent = Object.assign(async () => makeAction("\\boxed{42}"), {
      trace: () => ({
        model: "m",
        messages: [{ role: "user" as const, content: "hi" }],
        samplesByTurn: [],
      }),
    });
    expect((await runEpisode(makeTestEnv(), traced, { seed: 3 })).trace).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      samplesByTurn: [],
    });
    expect((await runEpisode(makeTestEnv(), oracleAgent, { seed: 3 })).trace).toBeUndefined();
  });

  it("random agent is reproducible per seed", async () => {
    const a = await runEpisode(makeTestEnv(), randomAgent(7), { seed: 1 });
    const b = await runEpisode(makeTestEnv(), randomAgent(7), { seed: 1 });
    expect(a.steps.map((s) => s.action.text)).toEqual(b.steps.map((s) => s.action.text));
    expect(a.turns).toBe(8);
  });

  it.each([
    // environment maxTurns, cap -> turns allowed (the reference: min(game max_turns, 25))
    [40, 25, 25],
    [12, 25, 12],
    [40, null, 40],
  ])("turnLimit(%i, cap %s) = %i", (maxTurns, cap, expected) => {
    expect(turnLimit(maxTurns, cap)).toBe(expected);
  });

  it("caps an episode at maxTurnsCap turns (truncated), and refuses a cap below 1 as a dropped episode with E_CONFIG", async () => {
    const wrong: Agent = async () => makeAction("\\boxed{5}");
    const capped = await runEpisode(makeTestEnv({ meta: { maxTurns: 40 } }), wrong, {
      seed: 0,
      maxTurnsCap: 25,
    });
    expect(capped).toMatchObject({ turns: 25, outcome: "truncated", return: 0, failure: null });
    const bad = await runEpisode(makeTestEnv(), wrong, { seed: 0, maxTurnsCap: 0 });
    expect(bad).toMatchObject({ outcome: "dropped", failureCode: "E_CONFIG" });
  });

  it("under failures: reference a context overflow ends the episode as truncated with return 0, even after rewards", async () => {
    // Turn 0 earns 0.5 (a partial reward), turn 1 overflows: return 0, counted (no failure).
    const env = makeTestEnv({
      step: () => ({
        observation: "go on",
        reward: 0.5,
        terminated: false,
        truncated: false,
        info: {},
      }),
    });
    let turns = 0;
    const agent: Agent = async () => {
      if (turns++ === 1) throw new SpadeError("E_POLICY_CONTEXT", "full");
      return makeAction("\\boxed{1}");
    };
    const episode = await runEpisode(env, agent, { seed: 0, failures: "reference" });
    expect(episode).toMatchObject(OVERFLOWED_AT_TURN_1);
    turns = 0;
    const dropped = await runEpisode(env, agent, { seed: 0, failures: "drop" });
    expect(dropped).toMatchObject({
      outcome: "dropped",
      failureCode: "E_POLICY_CONTEXT",
      failureStage: "agent",
    });
  });

  it("under failures: reference a malformed tool call is answered with the error, masked, and the episode goes on; other agent errors drop it", async () => {
    const seen: string[] = [];
    let turn = 0;
    const agent: Agent = async ({ observation }) => {
      seen.push(observation);
      if (turn++ === 0)
        throw new MalformedToolCallError(
          "<tool_call>{oops</tool_call>",
          ["{oops"],
          "check the parser",
        );
      return makeAction("\\boxed{42}");
    };
    const episode = await runEpisode(makeTestEnv(), agent, { seed: 3, failures: "reference" });
    expect(episode).toMatchObject({
      turns: 2,
      outcome: "terminated",
      return: 1,
      success: true,
      maskedTurns: [0],
      failure: null,
    });
    expect(seen[1]).toBe(MALFORMED_TOOL_CALL_OBSERVATION);
    expect(episode.steps[0]).toMatchObject({
      masked: true,
      reward: 0,
      action: { text: "<tool_call>{oops</tool_call>" },
    });
    const http: Agent = async () => {
      throw new SpadeError("E_POLICY_HTTP", "server down after retries");
    };
    expect(await runEpisode(makeTestEnv(), http, { seed: 3, failures: "reference" })).toMatchObject(
      { outcome: "dropped", failureCode: "E_POLICY_HTTP" },
    );
  });
});
