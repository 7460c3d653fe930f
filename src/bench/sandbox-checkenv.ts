/**
 * @module bench/sandbox-checkenv
 * The sandbox benchmark's validation rows: `checkEnv` over every library program on one backend,
 * with a tree's validator and loader (this tree's, or a baseline checkout's).
 */
import { checkEnv } from "../env/check.js";
import { libraryNames, resolveProgram } from "../envs/index.js";
import { loadProgram, type SandboxBackendName } from "../sandbox/index.js";
import { cpuMicros, median } from "./cpu.js";
import type { ProgramLoader } from "./sandbox-play.js";

/** How a tree validates an environment (this tree's `checkEnv`, or a baseline's). */
export type Checker = typeof checkEnv;

/** What the baseline comparison runs of a tree: its `loadProgram` and its `checkEnv`. */
export interface Tree {
  load: ProgramLoader;
  check: Checker;
}

/** This tree's `loadProgram` and `checkEnv`. */
export const THIS_TREE: Tree = { load: loadProgram, check: checkEnv };

/**
 * `checkEnv` over every library program on `backend` with `tree`'s validator and loader: its
 * median and largest time, in ms, and the median CPU time of one validation (this process and its
 * sandbox processes), in ms.
 */
export async function checkEnvTimes(
  backend: SandboxBackendName,
  tree: Tree = THIS_TREE,
): Promise<{ medianMs: number; maxMs: number; cpuMs: number; count: number; failed: string[] }> {
  const times: number[] = [];
  const cpu: number[] = [];
  const failed: string[] = [];
  for (const name of libraryNames()) {
    const { source } = resolveProgram(name);
    const start = performance.now();
    const cpuBefore = cpuMicros();
    const report = await tree.check(() => tree.load(source, { backend }));
    cpu.push((cpuMicros() - cpuBefore) / 1000);
    times.push(performance.now() - start);
    if (!report.ok) failed.push(`${name} (${report.failures.join(", ")})`);
  }
  return {
    medianMs: median(times),
    maxMs: Math.max(...times),
    cpuMs: median(cpu),
    count: times.length,
    failed,
  };
}
