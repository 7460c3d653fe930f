/**
 * Library games rewritten in Python (the reference's program format) against their JavaScript
 * originals: both pass checkEnv, and on the same seeds the oracle plays the same episodes.
 */
import { describe, expect, it } from "vitest";
import { checkEnv, makeAction, type Env } from "../env/index.js";
import { loadProgram } from "../sandbox/index.js";
import { resolveProgram } from "./index.js";
import { COUNTERFEIT_COIN_PY, VAULT_CRACKER_PY } from "./testing/python-library.js";

const GAMES = [
  ["vault-cracker", VAULT_CRACKER_PY],
  ["counterfeit-coin", COUNTERFEIT_COIN_PY],
] as const;
const SEEDS = [0, 1, 2, 7, 12345, -3, 2 ** 40 + 5];

/** Every observation, reward, flag and info of an oracle episode, hint included. */
async function oracleEpisode(env: Env, seed: number): Promise<unknown[]> {
  const turns: unknown[] = [await env.reset(seed), await env.hint()];
  for (let turn = 0; turn < env.meta.maxTurns; turn++) {
    const action = await env.solve();
    const result = await env.step(action);
    turns.push(action.text, result);
    if (result.terminated) break;
  }
  return turns;
}

describe.each(GAMES)("%s in Python", (name, source) => {
  it("passes checkEnv", async () => {
    const report = await checkEnv(() => loadProgram(source, { language: "python" }));
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(true);
  }, 120_000);

  it("has the JavaScript original's meta and plays its episodes on the same seeds", async () => {
    const python = await loadProgram(source, { language: "python" });
    const javascript = await loadProgram(resolveProgram(name).source);
    try {
      expect(python.meta).toEqual(javascript.meta);
      for (const seed of SEEDS) {
        const episode = await oracleEpisode(python, seed);
        expect(episode, `seed ${seed}`).toEqual(await oracleEpisode(javascript, seed));
        expect((episode.at(-1) as { reward: number }).reward).toBe(1);
      }
      // Off the oracle's path too: junk and a wrong answer.
      await python.reset(3);
      await javascript.reset(3);
      for (const text of ["hello", "\\boxed{1 vs 2}", "\\boxed{0123}", "\\boxed{coin 1 heavier}"]) {
        expect(await python.step(makeAction(text)), text).toEqual(await javascript.step(makeAction(text)));
      }
    } finally {
      await python.close();
      await javascript.close();
    }
  }, 120_000);
});
