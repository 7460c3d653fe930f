/**
 * @module env/oracle
 * One oracle turn on any `Env`: `solve()` then `step()` with its action, through the
 * environment's `solveAndStep` where it has one (fewer round trips to a sandbox).
 */
import type { Env, OracleTurn } from "./types.js";

/**
 * Plays the oracle's next action on `env` and returns it with the step's result. Rejects with
 * the error of the first of the two calls that failed.
 */
export async function oracleTurn(env: Env): Promise<OracleTurn> {
  if (!env.solveAndStep) {
    const action = await env.solve();
    return { action, result: await env.step(action) };
  }
  const turn = await env.solveAndStep();
  if ("stepError" in turn) throw turn.stepError;
  return turn;
}
