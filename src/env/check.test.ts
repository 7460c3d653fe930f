import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SpadeError } from "../errors.js";
import { makeAction } from "./action.js";
import { checkEnv, type CheckOptions } from "./check.js";
import { CHECK_CODES, type CheckCode } from "./check-recorder.js";
import { makeTestEnv, type TestEnvOverrides } from "./testing/test-env.js";
import type { Env } from "./types.js";

const check = (overrides: TestEnvOverrides = {}) => checkEnv(async () => makeTestEnv(overrides));

/** Calls the validator made, by kind: `solve` alone, `step` alone, and `solveAndStep` turns. */
interface CallCounts {
  solve: number;
  step: number;
  turns: number;
}

/**
 * TEST DOUBLE: the test environment with a `solveAndStep` (as a sandboxed program has: solve,
 * then step with its action, a failed step resolved as `stepError`), counting each kind of call.
 */
function withSolveAndStep(env: Env, counts: CallCounts): Env {
  return {
    ...env,
    solve: () => (counts.solve++, env.solve()),
    step: (action) => (counts.step++, env.step(action)),
    async solveAndStep() {
      counts.turns++;
      const action = await env.solve();
      return env.step(action).then(
        (result) => ({ action, result }),
        (stepError: unknown) => ({ action, stepError }),
      );
    },
  };
}

/** A step override: `onOracle` answers the oracle's action (the secret), other actions go on. */
function onOracleAction(onOracle: () => unknown): TestEnvOverrides["step"] {
  return (a, s) =>
    a.answer === String(s.secret) ? onOracle() : { ...win, reward: 0, terminated: false };
}

/** The report of `overrides` validated twice: as is, and with `solveAndStep`; and the counts. */
async function bothWays(overrides: TestEnvOverrides, options: CheckOptions = {}) {
  const counts: CallCounts = { solve: 0, step: 0, turns: 0 };
  const plain = await checkEnv(async () => makeTestEnv(overrides), options);
  const oneTrip = await checkEnv(
    async () => withSolveAndStep(makeTestEnv(overrides), counts),
    options,
  );
  return { plain, oneTrip, counts };
}
const win = { observation: "won", reward: 1, terminated: true, truncated: false, info: {} };

describe("checkEnv on native environments", () => {
  it("accepts a valid environment and reports every check", async () => {
    const report = await check();
    expect(report.ok).toBe(true);
    expect(report.failures).toEqual([]);
    expect(report.checks.map((c) => c.code)).toEqual([...CHECK_CODES]);
    expect(report.meta?.name).toBe("guess-number");
  });

  it("runs its checks in the order docs/validation.md's table lists them", () => {
    const doc = readFileSync(new URL("../../docs/validation.md", import.meta.url), "utf8");
    const table = [...doc.matchAll(/^\| `(E_[A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(table).toEqual([...CHECK_CODES]);
    expect(CHECK_CODES).toHaveLength(12);
  });

  it("reports E_COMPILE when the environment cannot be opened", async () => {
    const report = await checkEnv(async () => {
      throw new SpadeError("E_SANDBOX_COMPILE", "SyntaxError: Unexpected end of input");
    });
    expect(report).toEqual({
      ok: false,
      failures: ["E_COMPILE"],
      checks: [
        {
          code: "E_COMPILE",
          ok: false,
          message: "loading the program: SyntaxError: Unexpected end of input",
        },
      ],
      meta: null,
    });
  });

  it("reports both the limit and E_COMPILE when opening times out", async () => {
    const report = await checkEnv(async () => {
      throw new SpadeError("E_SANDBOX_TIMEOUT", "compile ran past 1000 ms");
    });
    expect(report.failures).toEqual(["E_COMPILE", "E_TIMEOUT"]);
  });

  it("reports E_META with every problem", async () => {
    const report = await check({ meta: { name: "Bad Name", maxTurns: 0 } });
    expect(report.failures).toEqual(["E_META"]);
    expect(report.checks[1]?.message).toContain("meta.name must be lowercase-kebab");
    expect(report.checks[1]?.message).toContain(
      "meta.maxTurns must be an integer from 1 to 200 (got 0)",
    );
  });

  it("reports E_RESET for a malformed observation", async () => {
    const report = await check({ reset: () => ({ observation: 42, info: {} }) });
    expect(report.failures).toContain("E_RESET");
    expect(report.checks.find((c) => c.code === "E_RESET")?.message).toMatch(
      /^reset\(0\): reset\(\)\.observation must be a non-empty string/,
    );
  });

  it("reports E_HINT for an empty or oversized hint", async () => {
    expect((await check({ hint: () => "" })).failures).toEqual(["E_HINT"]);
    expect((await check({ hint: () => "x".repeat(2001) })).failures).toEqual(["E_HINT"]);
  });

  it("reports E_STEP for a reward out of bounds on a probe", async () => {
    const report = await check({
      step: (a, s) =>
        a.answer === String(s.secret)
          ? win
          : { ...win, reward: a.text === "" ? 5 : 0, terminated: false },
    });
    expect(report.failures).toEqual(["E_STEP"]);
    expect(report.checks.find((c) => c.code === "E_STEP")?.message).toMatch(
      /^probe "empty text": step\(\)\.reward must be in \[-1, 1\] \(got 5\)/,
    );
  });

  it("reports E_STEP where the contract breaks during the oracle run, and E_ORACLE too", async () => {
    const report = await check({
      step: (a, s) =>
        a.answer === String(s.secret)
          ? { ...win, reward: Number.NaN }
          : { ...win, reward: 0, terminated: false },
    });
    expect(report.failures).toEqual(["E_STEP", "E_ORACLE"]);
  });

  it("reports E_ORACLE when following solve() does not succeed", async () => {
    const report = await check({ solve: () => makeAction("\\boxed{5}") });
    expect(report.failures).toEqual(["E_ORACLE"]);
    expect(report.checks.find((c) => c.code === "E_ORACLE")?.message).toBe(
      "seed 0: following solve() gave return 0 after 8 turns (success needs 0.99 within maxTurns 8) (and 3 more)",
    );
  });

  it("reports E_NONDETERMINISTIC when reset depends on what the instance did before", async () => {
    const report = await check({
      reset: (seed, s) => {
        s.secret = 10 + ((seed + s.resets) % 90);
        return { observation: "Guess a number from 10 to 99.", info: {} };
      },
    });
    expect(report.failures).toEqual(["E_NONDETERMINISTIC"]);
  });

  it("reports E_NONDETERMINISTIC when a fresh instance plays differently", async () => {
    let instances = 0;
    const report = await checkEnv(async () => {
      const offset = instances++;
      return makeTestEnv({
        reset: (seed, s) => (
          (s.secret = 10 + seed + offset),
          { observation: `Guess (${offset === 0 ? "a" : "b"}).`, info: {} }
        ),
      });
    });
    expect(report.failures).toEqual(["E_NONDETERMINISTIC"]);
    expect(report.checks.find((c) => c.code === "E_NONDETERMINISTIC")?.message).toBe(
      "replaying on a fresh instance of seed 0: the first observation differs",
    );
  });

  it("reports E_TRIVIAL when empty answers win", async () => {
    const report = await check({ step: () => win });
    expect(report.failures).toEqual(["E_TRIVIAL"]);
    expect(report.checks.find((c) => c.code === "E_TRIVIAL")?.message).toContain(
      'the trivial policy "empty answers" succeeds on 5 of 5 seeds',
    );
  });

  it("maps sandbox limit errors to their codes and stops after three", async () => {
    const report = await check({
      step: (a) => {
        if (a.text === "") throw new SpadeError("E_SANDBOX_TIMEOUT", "step ran past 200 ms");
        return { ...win, reward: 0, terminated: false };
      },
    });
    expect(report.failures).toEqual(["E_STEP", "E_ORACLE", "E_TIMEOUT"]);
    expect(report.checks.map((c) => c.code)).not.toContain("E_TRIVIAL");
  });

  it("maps memory and output-size errors to E_MEMORY and E_OUTPUT_SIZE", async () => {
    const mem = await check({
      hint: () => {
        throw new SpadeError("E_SANDBOX_MEMORY", "heap limit");
      },
    });
    expect(mem.failures).toEqual(["E_HINT", "E_MEMORY"]);
    const big = await check({
      step: () => {
        throw new SpadeError("E_SANDBOX_OUTPUT_SIZE", "2000000 bytes");
      },
    });
    expect(big.failures).toEqual(["E_STEP", "E_OUTPUT_SIZE"]);
  });

  // Issue 16 item 4: a program spending just under every call's deadline held checkEnv for minutes.
  it("stops with E_TIME_BUDGET once the validation's wall-time budget is spent", async () => {
    let clockMs = 1000;
    let calls = 0;
    // Each step "takes" 150 ms of the test clock; the budget is 1000 ms.
    const report = await checkEnv(
      async () =>
        makeTestEnv({
          step: () => {
            calls++;
            clockMs += 150;
            return { ...win, reward: 0, terminated: false };
          },
        }),
      { budgetMs: 1000, now: () => clockMs },
    );
    expect(report.failures).toEqual(["E_TIME_BUDGET"]);
    // 7 steps use 1050 ms; the 8th call finds the budget spent.
    expect(calls).toBe(7);
    expect(report.checks.find((c) => c.code === "E_TIME_BUDGET")?.message).toBe(
      "the validation used its 1000 ms budget (1050 ms) before solve() on seed 0; the checks after it did not run",
    );
    expect(report.checks.map((c) => c.code)).not.toContain("E_ORACLE");
  });

  // Issue 15 item 5: the oracle's turns cross a sandbox's boundary once each, not twice.
  it("plays the oracle through solveAndStep where the env has one, with the same report", async () => {
    const { plain, oneTrip, counts } = await bothWays({});
    expect(oneTrip).toEqual(plain);
    expect(oneTrip.ok).toBe(true);
    // 4 seeds: each oracle episode is one guess (the secret); solve() is never called alone.
    expect(counts).toMatchObject({ solve: 0, turns: 4 });
  });

  it.each([
    [
      "a solve that throws",
      { solve: () => Promise.reject(new SpadeError("E_SANDBOX_THROW", "solve() threw: no")) },
      ["E_ORACLE"],
    ],
    [
      "a solve past its deadline",
      { solve: () => Promise.reject(new SpadeError("E_SANDBOX_TIMEOUT", "solve() ran past")) },
      ["E_ORACLE", "E_TIMEOUT"],
    ],
    [
      "a step that throws on the oracle's action",
      {
        step: onOracleAction(() => {
          throw new SpadeError("E_SANDBOX_THROW", "step() threw: oops");
        }),
      },
      ["E_STEP", "E_ORACLE"],
    ],
    [
      "a step past its deadline on the oracle's action",
      {
        step: onOracleAction(() => {
          throw new SpadeError("E_SANDBOX_TIMEOUT", "step() ran past");
        }),
      },
      ["E_STEP", "E_ORACLE", "E_TIMEOUT"],
    ],
    [
      "a step that breaks the contract on the oracle's action",
      { step: onOracleAction(() => ({ ...win, reward: Number.NaN })) },
      ["E_STEP", "E_ORACLE"],
    ],
  ] as Array<[string, TestEnvOverrides, CheckCode[]]>)(
    "solveAndStep gives the same report for %s",
    async (_name, overrides, failures) => {
      const { plain, oneTrip, counts } = await bothWays(overrides);
      expect(oneTrip).toEqual(plain);
      expect(oneTrip.failures).toEqual(failures);
      expect(counts.solve).toBe(0);
      expect(counts.turns).toBeGreaterThan(0);
    },
  );

  it.each([150, 333, 400])(
    "solveAndStep: the same report when steps of %i ms spend the budget",
    async (tickMs) => {
      let clockMs = 0;
      const { plain, oneTrip } = await bothWays(
        {
          step: (a, s) => {
            clockMs += tickMs;
            return a.answer === String(s.secret) ? win : { ...win, reward: 0, terminated: false };
          },
        },
        { budgetMs: 3000, now: () => clockMs },
      );
      expect(oneTrip).toEqual(plain);
      expect(oneTrip.failures).toEqual(["E_TIME_BUDGET"]);
    },
  );

  it("solveAndStep: the budget is checked before the turn, not between its solve and step", async () => {
    let clockMs = 0;
    const { plain, oneTrip } = await bothWays(
      {
        solve: (s) => {
          clockMs += 400;
          return makeAction(`\\boxed{${s.secret}}`);
        },
      },
      { budgetMs: 1000, now: () => clockMs },
    );
    const budget = (r: typeof plain) => r.checks.find((c) => c.code === "E_TIME_BUDGET")?.message;
    expect(budget(plain)).toBe(
      "the validation used its 1000 ms budget (1200 ms) before oracle, seed 2, turn 1; the checks after it did not run",
    );
    // The solve that spent the budget is followed by its step; the next call's check stops.
    expect(budget(oneTrip)).toBe(
      "the validation used its 1000 ms budget (1200 ms) before reset(2) again; the checks after it did not run",
    );
    expect(oneTrip.failures).toEqual(plain.failures);
  });

  it("refuses a budget that is not positive", async () => {
    await expect(checkEnv(async () => makeTestEnv(), { budgetMs: 0 })).rejects.toMatchObject({
      code: "E_CONFIG",
    });
  });
});
