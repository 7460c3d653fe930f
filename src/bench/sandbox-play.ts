/**
 * @module bench/sandbox-play
 * The sandbox benchmark's measurement: oracle episodes played on loaded environments, alone or
 * many at once, for a while; steps per second and the CPU time each step took.
 */
import type { Env, OracleTurn } from "../env/index.js";
import { oracleTurn } from "../env/oracle.js";
import { resolveProgram } from "../envs/index.js";
import { isSpadeError } from "../errors.js";
import { loadProgram, type SandboxBackendName } from "../sandbox/index.js";
import { cpuMicros } from "./cpu.js";
import { ENV_NAME } from "./sandbox-programs.js";

/** Episodes in flight in the concurrent rows. */
export const CONCURRENT_EPISODES = 64;

/** CPU µs per step of the last measured row (see `cpuMicros`). */
export let lastCpuPerStepUs = 0;

/** Calls that ran past their deadline during the rows (a loaded machine); their episodes end. */
export let timeouts = 0;

/**
 * Plays oracle episodes on `env` until `endMs`; returns the number of `step` calls. `turn` is one
 * oracle turn: `oracleTurn` (one round trip where the env can) unless told otherwise.
 */
async function playOracleUntil(
  env: Env,
  endMs: number,
  firstSeed: number,
  turn: (env: Env) => Promise<OracleTurn> = oracleTurn,
): Promise<number> {
  let steps = 0;
  for (let seed = firstSeed; performance.now() < endMs; seed += CONCURRENT_EPISODES) {
    try {
      await env.reset(seed);
      for (let t = 0; t < env.meta.maxTurns; t++) {
        const { result } = await turn(env);
        steps++;
        if (result.terminated) break;
      }
    } catch (err) {
      if (!isSpadeError(err, "E_SANDBOX_TIMEOUT")) throw err;
      timeouts++;
    }
  }
  return steps;
}

/** An oracle turn in two round trips: `solve()`, then `step()`. */
export async function solveThenStep(env: Env): Promise<OracleTurn> {
  const action = await env.solve();
  return { action, result: await env.step(action) };
}

/**
 * Plays oracle episodes of a loaded `env` for `seconds`, then closes it; steps per second
 * (`step` calls, each preceded by a `solve`).
 */
export async function oracleStepsPerSecond(env: Env, seconds: number): Promise<number> {
  return concurrentStepsPerSecond([env], seconds);
}

/**
 * Plays oracle episodes on every env of `envs` at once for `seconds`, then closes them; total
 * steps per second over all of them.
 */
async function concurrentStepsPerSecond(
  envs: Env[],
  seconds: number,
  turn?: (env: Env) => Promise<OracleTurn>,
): Promise<number> {
  const start = performance.now();
  const cpuBefore = cpuMicros();
  try {
    const counts = await Promise.all(
      envs.map((env, i) => playOracleUntil(env, start + seconds * 1000, i, turn)),
    );
    const steps = counts.reduce((a, b) => a + b, 0);
    lastCpuPerStepUs = (cpuMicros() - cpuBefore) / steps;
    return steps / ((performance.now() - start) / 1000);
  } finally {
    await Promise.all(envs.map((env) => env.close()));
  }
}

/** How a tree loads a JavaScript program (this tree's `loadProgram`, or a baseline's). */
export type ProgramLoader = (
  source: string,
  options: { backend: SandboxBackendName },
) => Promise<Env>;

/** Steps per second of `source` on `backend` with `episodes` environments playing at once. */
export async function programStepsPerSecond(
  source: string,
  backend: SandboxBackendName,
  episodes: number,
  seconds: number,
  turn?: (env: Env) => Promise<OracleTurn>,
  load: ProgramLoader = loadProgram,
): Promise<number> {
  const envs = await Promise.all(Array.from({ length: episodes }, () => load(source, { backend })));
  return concurrentStepsPerSecond(envs, seconds, turn);
}

/** Plays oracle episodes for `seconds`; counts `step` calls (each preceded by a `solve`). */
export async function sandboxStepsPerSecond(
  backend: SandboxBackendName,
  seconds: number,
): Promise<number> {
  return oracleStepsPerSecond(
    await loadProgram(resolveProgram(ENV_NAME).source, { backend }),
    seconds,
  );
}
