import { afterEach, describe, expect, it } from "vitest";
import { SpadeError, isSpadeError } from "../errors.js";
import { makeAction, type Env } from "../env/index.js";
import { makeTestEnv, type TestEnvOverrides } from "../env/testing/test-env.js";
import { chatAgent, Limiter, openAIChatBackend } from "../policy/index.js";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../test/fakes/openai-server.js";
import { inFlightGauge } from "../../test/in-flight.js";
import { oracleAgent } from "./agents.js";
import type { Agent } from "./episode.js";
import { groupStats, pairedSeeds, runGroup } from "./group.js";

/** The test env's secret for a seed (see env/testing/test-env.ts). */
const secretOf = (seed: number) => 10 + ((seed * 37 + 11) % 90);

/** An opener that counts instances and tracks how many are open. */
function countingOpener(overrides: TestEnvOverrides = {}) {
  const stats = { opened: 0, closed: 0 };
  const open = async (): Promise<Env> => {
    stats.opened++;
    const env = makeTestEnv(overrides);
    return { ...env, meta: env.meta, close: async () => void stats.closed++ };
  };
  return { open, stats };
}

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("pairedSeeds and groupStats", () => {
  it("pairs hinted episode i with unhinted seed i mod N", () => {
    expect(pairedSeeds([5, 9, 13], 5)).toEqual([
      { seed: 5, hinted: false },
      { seed: 9, hinted: false },
      { seed: 13, hinted: false },
      { seed: 5, hinted: true },
      { seed: 9, hinted: true },
      { seed: 13, hinted: true },
      { seed: 5, hinted: true },
      { seed: 9, hinted: true },
    ]);
    expect(() => pairedSeeds([], 2)).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
    expect(() => pairedSeeds([1], -1)).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
  });

  it("leaves failed episodes out of the rates", () => {
    const ep = (ret: number, failure: string | null) => ({
      seed: 0,
      hinted: false,
      firstObservation: "",
      steps: [],
      return: ret,
      success: ret >= 0.99 && failure === null,
      turns: 1,
      outcome: failure === null ? ("terminated" as const) : ("dropped" as const),
      maskedTurns: [],
      failure,
      failureStage: null,
      failureCode: null,
    });
    expect(groupStats([ep(1, null), ep(0, null), ep(0.5, null), ep(0, "agent: x")])).toEqual({
      episodes: 4,
      failed: 1,
      successRate: 1 / 3,
      meanReturn: 0.5,
    });
    expect(groupStats([ep(0, "step: y")])).toEqual({
      episodes: 1,
      failed: 1,
      successRate: null,
      meanReturn: null,
    });
  });
});

describe("runGroup", () => {
  it("plays hinted and unhinted episodes on paired seeds through the chat agent and the fake server", async () => {
    // The fake model answers the hinted number when the hint is there, else a fixed wrong-ish guess.
    server = await startFakeOpenAIServer((req) => {
      const first = String(req.body.messages[1].content);
      const hint = /HINT: The number is (\d+)\./.exec(first);
      return {
        kind: "slow",
        delayMs: 5,
        reply: { kind: "text", content: hint ? `\\boxed{${hint[1]}}` : "\\boxed{99}" },
      };
    });
    const backend = openAIChatBackend({ baseURL: server.baseURL, model: "fake" });
    const seeds = [0, 1, 2];
    const { open, stats } = countingOpener({ meta: { maxTurns: 2 } });
    const result = await runGroup(open, ({ signal }) => chatAgent({ backend, signal }), {
      seeds,
      hintedEpisodes: 4,
      concurrency: 3,
    });
    expect(result.episodes.map((e) => [e.seed, e.hinted])).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [0, true],
      [1, true],
      [2, true],
      [0, true],
    ]);
    for (const e of result.episodes.filter((x) => x.hinted)) {
      expect(e.firstObservation).toBe(
        `Guess a number from 10 to 99 as \\boxed{n}.\n\nHINT: The number is ${secretOf(e.seed)}.`,
      );
      expect(e.steps[0]!.action.answer).toBe(String(secretOf(e.seed)));
    }
    // Secrets of seeds 0, 1, 2 are 21, 58, 95: 99 never wins.
    expect(result.unhinted).toEqual({ episodes: 3, failed: 0, successRate: 0, meanReturn: 0 });
    expect(result.hinted).toEqual({ episodes: 4, failed: 0, successRate: 1, meanReturn: 1 });
    expect(result.episodes.every((e) => e.trace?.messages[0]?.role === "system")).toBe(true);
    expect([stats.opened, stats.closed]).toEqual([3, 3]);
    expect(server.requests).toHaveLength(3 * 2 + 4);
  });

  it("opens one environment per episode in flight and never runs more than the cap", async () => {
    const { open, stats } = countingOpener();
    const agents = inFlightGauge();
    const slowOracle: Agent = (turn) => agents.hold(5, () => oracleAgent(turn));
    const result = await runGroup(open, () => slowOracle, {
      seeds: [1, 2, 3, 4, 5, 6],
      hintedEpisodes: 6,
      concurrency: 2,
    });
    expect([agents.most, stats.opened, stats.closed]).toEqual([2, 2, 2]);
    expect(result.unhinted.successRate).toBe(1);
    expect(result.episodes.map((e) => e.seed)).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
  });

  it("bounds how many environments open at once with the open limiter", async () => {
    const opening = inFlightGauge();
    const open = () => opening.hold(3, () => makeTestEnv());
    const result = await runGroup(open, () => oracleAgent, {
      seeds: [0, 1, 2, 3, 4, 5, 6, 7],
      openLimiter: new Limiter(2),
    });
    expect([opening.most, result.unhinted.successRate]).toEqual([2, 1]);
  });

  it("shares a limiter across groups", async () => {
    const limiter = new Limiter(1);
    const agents = inFlightGauge();
    const agent: Agent = (turn) => agents.hold(2, () => oracleAgent(turn));
    await Promise.all(
      [1, 2, 3].map((g) =>
        runGroup(countingOpener().open, () => agent, { seeds: [g, g + 10], limiter }),
      ),
    );
    expect([agents.most, limiter.active]).toEqual([1, 0]);
  });

  it("flags failed episodes, excludes them from stats, and reopens the environment after an environment failure", async () => {
    const { open, stats } = countingOpener({
      step: (action, state) => {
        if (state.secret === secretOf(7))
          throw new SpadeError("E_SANDBOX_TIMEOUT", "step ran past 200 ms");
        return {
          observation: "Correct!",
          reward: action.answer === String(state.secret) ? 1 : 0,
          terminated: true,
          truncated: false,
          info: {},
        };
      },
    });
    const makeAgent = ({ index }: { index: number }): Agent => {
      if (index === 1) throw new SpadeError("E_CONFIG", "no agent for you");
      return oracleAgent;
    };
    const result = await runGroup(open, makeAgent, { seeds: [3, 5, 7, 9], concurrency: 1 });
    expect(result.episodes.map((e) => [e.seed, e.failureStage, e.failureCode])).toEqual([
      [3, null, null],
      [5, "agent", "E_CONFIG"],
      [7, "step", "E_SANDBOX_TIMEOUT"],
      [9, null, null],
    ]);
    expect(result.unhinted).toEqual({ episodes: 4, failed: 2, successRate: 1, meanReturn: 1 });
    expect([stats.opened, stats.closed]).toEqual([2, 2]);
  });

  it("records an environment that fails to open as an 'open' failure and tries again for the next episode", async () => {
    let calls = 0;
    const open = async () => {
      if (++calls === 1) throw new SpadeError("E_SANDBOX_COMPILE", "no Environment class");
      return makeTestEnv();
    };
    const ended: Array<[number, string | null]> = [];
    const result = await runGroup(open, () => oracleAgent, {
      seeds: [0, 1],
      concurrency: 1,
      onEpisode: (e) => ended.push([e.seed, e.failureStage ?? null]),
    });
    // onEpisode hears of both, the open failure included, as each ends.
    expect(ended).toEqual([
      [0, "open"],
      [1, null],
    ]);
    expect(result.episodes[0]).toMatchObject({
      failure: "open: E_SANDBOX_COMPILE: no Environment class",
      failureStage: "open",
      failureCode: "E_SANDBOX_COMPILE",
      turns: 0,
    });
    expect(result.episodes[1]).toMatchObject({ failure: null, success: true });
    expect(result.unhinted).toEqual({ episodes: 2, failed: 1, successRate: 1, meanReturn: 1 });
  });

  it("cancels: no new episodes, running ones stop, environments closed, E_CANCELLED", async () => {
    const { open, stats } = countingOpener({
      meta: { maxTurns: 50 },
      step: () => ({
        observation: "again",
        reward: 0,
        terminated: false,
        truncated: false,
        info: {},
      }),
    });
    const controller = new AbortController();
    let turns = 0;
    const agent: Agent = async () => {
      if (++turns === 10) controller.abort();
      await new Promise((r) => setTimeout(r, 1));
      return makeAction("\\boxed{1}");
    };
    const err = await runGroup(open, () => agent, {
      seeds: [0, 1, 2, 3, 4, 5],
      concurrency: 2,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_CANCELLED")).toBe(true);
    expect((err as SpadeError).message).toBe("the group was cancelled after 0 of 6 episodes");
    expect(turns).toBeLessThanOrEqual(12);
    expect([stats.opened, stats.closed]).toEqual([2, 2]);
  });
});
