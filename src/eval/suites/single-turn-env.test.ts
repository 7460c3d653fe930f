import { describe, expect, it } from "vitest";
import { dataRoot } from "../data.js";
import { checkEnv, makeAction } from "../../env/index.js";
import { isSpadeError } from "../../errors.js";
import { oracleAgent, runEpisode, type Agent } from "../../rollout/index.js";
import { loadSuite } from "./load.js";
import { PythonSandbox } from "./code/python-sandbox.js";
import { sandboxMissing } from "./code/testing/sandbox-probe.js";
import { skipWithout } from "../../../test/missing.js";
import { SingleTurnEnv } from "./single-turn-env.js";
import type { ItemSpec } from "./types.js";

const dataDir = dataRoot({ env: process.env });
const sandboxProbe = await PythonSandbox.create().catch((err: unknown) => err);

/** TEST DOUBLE: an item whose correct answer is `\boxed{4}`. */
const fakeItem: ItemSpec = {
  suite: "gsm8k",
  id: "gsm8k/fake",
  prompt: "What is 2 + 2?",
  reference: "4",
  oracleText: "\\boxed{4}",
  hint: "The final answer is 4",
  grade: async (action) => ({ correct: action.answer === "4", info: { answer: action.answer } }),
};

describe("SingleTurnEnv", () => {
  it("shows the question, grades one action with reward 1 or 0, and terminates", async () => {
    const env = new SingleTurnEnv(fakeItem);
    expect(env.meta).toEqual({
      name: "eval-gsm8k",
      skill: "Mathematical Reasoning",
      description: expect.any(String),
      maxTurns: 1,
      tools: [],
    });
    expect(await env.reset(7)).toEqual({
      observation: "What is 2 + 2?",
      info: { suite: "gsm8k", id: "gsm8k/fake" },
    });
    expect(await env.step(makeAction("\\boxed{4}"))).toEqual({
      observation: "Correct.",
      reward: 1,
      terminated: true,
      truncated: false,
      info: { suite: "gsm8k", id: "gsm8k/fake", correct: true, answer: "4" },
    });
    await env.reset(0);
    expect((await env.step(makeAction("\\boxed{5}"))).reward).toBe(0);
    expect(await env.hint()).toBe("The final answer is 4");
    expect(await env.solve()).toEqual({ text: "\\boxed{4}", answer: "4", toolCalls: [] });
  });

  it("rejects step before reset, a second step, and use after close with E_ENV_CONTRACT", async () => {
    const env = new SingleTurnEnv(fakeItem);
    const before = await env.step(makeAction("x")).catch((e: unknown) => e);
    expect(isSpadeError(before, "E_ENV_CONTRACT")).toBe(true);
    await env.reset(0);
    await env.step(makeAction("x"));
    const again = await env.step(makeAction("x")).catch((e: unknown) => e);
    expect(isSpadeError(again, "E_ENV_CONTRACT")).toBe(true);
    await env.close();
    const closed = await env.reset(0).catch((e: unknown) => e);
    expect(isSpadeError(closed, "E_ENV_CONTRACT")).toBe(true);
  });

  it.each(["gsm8k", "math500", "bbh"])(
    "a %s item passes the environment validator",
    async (suite) => {
      const item = (await loadSuite(suite, { dataDir, limit: 1 }))[0]!;
      const report = await checkEnv(async () => item.createEnv());
      expect(report.failures).toEqual([]);
      expect(report.ok).toBe(true);
    },
  );

  // Skip reason: this machine cannot build the Python sandbox's namespaces.
  it.skipIf(skipWithout(sandboxMissing(sandboxProbe)))(
    "a humaneval item passes the environment validator",
    async () => {
      const item = (
        await loadSuite("humaneval", { dataDir, limit: 1, sandbox: { maxConcurrency: 2 } })
      )[0]!;
      const report = await checkEnv(async () => item.createEnv());
      expect(report.failures).toEqual([]);
      expect(report.ok).toBe(true);
    },
  );

  it("runs through the rollout code: the oracle succeeds, a wrong answer does not", async () => {
    const item = (await loadSuite("math500", { dataDir, limit: 1 }))[0]!;
    const win = await runEpisode(item.createEnv(), oracleAgent, { seed: 0 });
    expect([win.return, win.success, win.turns, win.failure]).toEqual([1, true, 1, null]);
    const wrong: Agent = async () => makeAction("\\boxed{-12345}");
    const loss = await runEpisode(item.createEnv(), wrong, { seed: 0 });
    expect([loss.return, loss.success, loss.turns, loss.failure]).toEqual([0, false, 1, null]);
  });
});
