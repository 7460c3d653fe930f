/**
 * Library games rewritten in Python (the reference's program format) against their JavaScript
 * originals: both pass checkEnv, and on the same seeds the oracle plays the same episodes.
 */
import { describe, expect, it } from "vitest";
import { describeEnvContract } from "../../test/env-contract.js";
import { checkEnv, makeAction, referenceGate, type Env } from "../env/index.js";
import { loadProgram } from "../sandbox/index.js";
import { resolveProgram } from "./index.js";
import {
  COUNTERFEIT_COIN_PY,
  INVENTORY_QUERY_PY,
  VAULT_CRACKER_PY,
} from "./testing/python-library.js";

const GAMES = [
  ["vault-cracker", VAULT_CRACKER_PY],
  ["counterfeit-coin", COUNTERFEIT_COIN_PY],
  // A tool-use game: meta tools, tool calls in and tool results out.
  ["inventory-query", INVENTORY_QUERY_PY],
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

describe.each(GAMES)("%s in Python: the shared Env contract suite", (_name, source) => {
  describeEnvContract(() => loadProgram(source, { language: "python" }));
});

describe.each(GAMES)("%s in Python", (name, source) => {
  it("has the JavaScript original's meta and plays its episodes on the same seeds", async () => {
    const python = await loadProgram(source, { language: "python" });
    const javascript = await loadProgram(resolveProgram(name).source);
    try {
      expect(python.meta).toEqual(javascript.meta);
      for (const seed of SEEDS) {
        const episode = await oracleEpisode(python, seed);
        expect(episode, `seed ${seed}`).toEqual(await oracleEpisode(javascript, seed));
        expect((episode.at(-1) as { reward: number }).reward).toBe(1);
        // The tool-use game's oracle goes through its tools (results compared above).
        if (name === "inventory-query")
          expect(
            episode.filter((t) => ((t as { toolResults?: unknown[] }).toolResults?.length ?? 0) > 0)
              .length,
            `seed ${seed}`,
          ).toBeGreaterThan(0);
      }
      // Off the oracle's path too: junk and a wrong answer.
      await python.reset(3);
      await javascript.reset(3);
      for (const text of ["hello", "\\boxed{1 vs 2}", "\\boxed{0123}", "\\boxed{coin 1 heavier}"]) {
        expect(await python.step(makeAction(text)), text).toEqual(
          await javascript.step(makeAction(text)),
        );
      }
    } finally {
      await python.close();
      await javascript.close();
    }
  }, 120_000);
});

describe("a pool game without an oracle (the reference's format)", () => {
  // The reference's own gate passes what its generated games provide; checkEnv asks for an oracle.
  const NO_ORACLE = `"""Generated game for Optimization"""
class CheapestPathEnv:
    """Pick the cheaper of two roads."""
    def __init__(self, max_turns=20):
        self.max_turns = max_turns
    def reset(self, seed=None):
        self.costs = [random.randint(1, 9), random.randint(10, 19)]
        random.shuffle(self.costs)
        return "Roads cost %d and %d. Answer \\\\boxed{1} or \\\\boxed{2}." % tuple(self.costs), {"costs": self.costs}
    def step(self, action):
        best = 1 + self.costs.index(min(self.costs))
        won = ("\\\\boxed{%d}" % best) in action
        return ("Cheapest." if won else "Too expensive."), (1.0 if won else 0.0), True, False, {}
`;

  it("passes --validation reference, and checkEnv names the missing hint", async () => {
    const open = () => loadProgram(NO_ORACLE, { language: "python" });
    const env = await open();
    // Meta as the reference derives it: the class name, the saved game's docstring, the constructor's max_turns (25).
    expect(env.meta).toEqual({
      name: "cheapest-path",
      skill: "Optimization",
      description: "Pick the cheaper of two roads.",
      maxTurns: 25,
      tools: [],
    });
    await env.close();
    const gate = await referenceGate(open);
    expect(gate.failures).toEqual([]);
    const strict = await checkEnv(open);
    expect(strict.ok).toBe(false);
    expect(strict.checks.find((c) => !c.ok)?.message).toMatch(/defines no (hint|solve)\(\) method/);
  }, 120_000);
});
