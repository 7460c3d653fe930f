import { describe, expect, it } from "vitest";
import { SpadeError } from "../errors.js";
import { checkEnv } from "./check.js";
import { referenceGate, REFERENCE_GATE } from "./reference-gate.js";
import { makeTestEnv, type TestEnvOverrides } from "./testing/test-env.js";
import type { Action } from "./types.js";

const gate = (overrides: TestEnvOverrides = {}) =>
  referenceGate(async () => makeTestEnv(overrides));
const going = { observation: "go on", reward: 0, terminated: false, truncated: false, info: {} };

describe("referenceGate (synthetic_game_env.py:SyntheticGameEnv._validate_game_execution)", () => {
  it("resets with 42, steps the three probe texts, resets with 123, and passes a valid environment", async () => {
    const seeds: number[] = [];
    const texts: string[] = [];
    const report = await gate({
      reset: (seed) => (seeds.push(seed), { observation: "guess", info: {} }),
      step: (action: Action) => (texts.push(action.text), going),
    });
    expect(seeds).toEqual([42, 123]);
    expect(texts).toEqual(["\\boxed{1}", "\\boxed{test}", "\\boxed{42}"]);
    expect(REFERENCE_GATE.actions).toEqual(texts);
    expect(report).toEqual({
      ok: true,
      failures: [],
      checks: [
        { code: "E_COMPILE", ok: true, message: "the program compiles and defines Environment" },
        { code: "E_META", ok: true, message: "meta is valid" },
        { code: "E_RESET", ok: true, message: "reset(42) and 3 probe steps return valid results" },
      ],
      meta: expect.objectContaining({ name: "guess-number" }),
    });
  });

  it("stops probing when an episode ends, as the reference does", async () => {
    const texts: string[] = [];
    const report = await gate({
      step: (a: Action) => (texts.push(a.text), { ...going, terminated: texts.length === 2 }),
    });
    expect(texts).toEqual(["\\boxed{1}", "\\boxed{test}"]);
    expect(report.checks[2]?.message).toBe("reset(42) and 2 probe steps return valid results");
  });

  it("passes what the strict validator refuses: an environment nobody can win", async () => {
    const unwinnable: TestEnvOverrides = {
      step: () => going,
      solve: () => ({ text: "\\boxed{0}", answer: "0", toolCalls: [] }),
    };
    expect((await checkEnv(async () => makeTestEnv(unwinnable))).failures).toContain("E_ORACLE");
    expect((await gate(unwinnable)).ok).toBe(true);
  });

  it("reports the first failure with the validator's codes", async () => {
    const noCompile = async (): Promise<never> => {
      throw new SpadeError("E_SANDBOX_COMPILE", "SyntaxError: Unexpected end of input");
    };
    // the same report as the validator's (check.test.ts spells it out)
    const compile = await referenceGate(noCompile);
    expect(compile.failures).toEqual(["E_COMPILE"]);
    expect(compile).toEqual(await checkEnv(noCompile));
    const contract = await referenceGate(async () => {
      throw new SpadeError(
        "E_ENV_CONTRACT",
        "Environment.meta: `maxTurns` must be a positive integer",
      );
    });
    expect(contract.failures).toEqual(["E_META"]);
    expect((await gate({ meta: { name: "Bad Name" } })).failures).toEqual(["E_META"]);
    const emptyObs = await gate({ reset: () => ({ observation: "", info: {} }) });
    expect(emptyObs.failures).toEqual(["E_RESET"]);
    expect(emptyObs.checks.at(-1)?.message).toBe(
      'reset(42): reset().observation must be a non-empty string (got "")',
    );
    const badReward = await gate({ step: () => ({ ...going, reward: 5 }) });
    expect(badReward.failures).toEqual(["E_STEP"]);
    expect(badReward.checks.at(-1)?.message).toBe(
      'step("\\\\boxed{1}"): step().reward must be in [-1, 1] (got 5)',
    );
    const throws = await gate({
      step: (a: Action) => {
        if (a.text === "\\boxed{test}") throw new Error("no such number");
        return going;
      },
    });
    expect(throws.checks.at(-1)).toEqual({
      code: "E_STEP",
      ok: false,
      message: 'step("\\\\boxed{test}"): no such number',
    });
    const secondReset = await gate({
      reset: (seed) => {
        if (seed === 123) throw new Error("cannot reset twice");
        return { observation: "o", info: {} };
      },
    });
    expect(secondReset.checks.at(-1)).toEqual({
      code: "E_RESET",
      ok: false,
      message: "second reset(123): cannot reset twice",
    });
  });

  it("reports a sandbox limit under its limit code", async () => {
    const report = await gate({
      step: () => {
        throw new SpadeError("E_SANDBOX_TIMEOUT", "step ran past 1000 ms");
      },
    });
    expect(report.failures).toEqual(["E_TIMEOUT"]);
    expect(report.checks.at(-1)?.message).toBe('step("\\\\boxed{1}"): step ran past 1000 ms');
  });
});
