/**
 * @module rollout/agents
 * Agents that need no model: the oracle (follows the environment's `solve()`) and a seeded random
 * prober (the validator's random-probe policy). Baselines for `spade env run`, not test doubles.
 */
import { trivialPolicies } from "../env/index.js";
import type { Action } from "../env/index.js";
import type { Agent } from "./episode.js";

/** Follows the environment's privileged `solve()`. */
export const oracleAgent: Agent = async ({ env }) => env.solve();

/** Random probe actions (empty, junk, boxed digits, schema-valid tool calls), seeded. */
export function randomAgent(seed: number): Agent {
  let act: ((observation: string) => Action) | undefined;
  return async ({ env, observation }) => {
    if (!act) {
      const random = trivialPolicies(env.meta).find((p) => p.name === "random probes");
      if (!random) throw new Error("the random-probe policy is missing");
      act = random.start(seed);
    }
    return act(observation);
  };
}
