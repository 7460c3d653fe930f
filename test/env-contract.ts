/**
 * The shared Env contract suite (STYLE.md point 14): every environment implementation (sandboxed
 * program, native TypeScript env, built-in library entry) registers these tests through
 * `describeEnvContract`. It runs the validator and, independently, the episode runner.
 */
import { expect, it } from "vitest";
import { CHECK_CODES, checkEnv, type CheckOptions, type Env } from "../src/env/index.js";
import { oracleAgent, runEpisode } from "../src/rollout/index.js";

/** Registers the contract tests for one environment; `open` returns a fresh instance. */
export function describeEnvContract(open: () => Promise<Env>, options: CheckOptions = {}): void {
  it("passes every validator check", async () => {
    const report = await checkEnv(open, options);
    const failed = report.checks.filter((c) => !c.ok).map((c) => `${c.code}: ${c.message}`);
    expect(failed).toEqual([]);
    expect(report.checks).toHaveLength(CHECK_CODES.length);
  });

  it("is solved by the oracle through the episode runner, identically twice, and shows the hint", async () => {
    const env = await open();
    try {
      const seed = (options.seeds ?? [0])[0] ?? 0;
      const first = await runEpisode(env, oracleAgent, { seed });
      const second = await runEpisode(env, oracleAgent, { seed });
      expect(first.failure).toBeNull();
      expect(first.success).toBe(true);
      expect(first.turns).toBeLessThanOrEqual(env.meta.maxTurns);
      expect(second.steps.map((s) => [s.observation, s.reward])).toEqual(
        first.steps.map((s) => [s.observation, s.reward]),
      );
      const hinted = await runEpisode(env, oracleAgent, { seed, hinted: true });
      expect(hinted.firstObservation).toBe(
        `${first.firstObservation}\n\nHINT: ${await (await env.reset(seed), env.hint())}`,
      );
    } finally {
      await env.close();
    }
  });
}
