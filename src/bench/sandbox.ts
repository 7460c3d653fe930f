/**
 * @module bench/sandbox
 * Benchmark (not a test): steps per second of one library environment under each sandbox
 * backend and, in the same run on the same machine, the same environment written in Python and
 * run in-process with `exec` (the reference's unisolated way). Final line:
 * `sandbox_vs_python_inprocess_ratio=<isolated-vm / python>`.
 *
 * Usage: npm run bench:sandbox [-- SECONDS]   (default 3 seconds per measurement)
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { resolveProgram } from "../envs/index.js";
import { loadProgram, SANDBOX_BACKENDS, type SandboxBackendName } from "../sandbox/index.js";

const ENV_NAME = "vault-cracker";
const PYTHON_SCRIPT = fileURLToPath(new URL("../../bench/python_inprocess.py", import.meta.url));

/** Plays oracle episodes for `seconds`; counts `step` calls (each preceded by a `solve`). */
async function sandboxStepsPerSecond(backend: SandboxBackendName, seconds: number): Promise<number> {
  const env = await loadProgram(resolveProgram(ENV_NAME).source, { backend });
  let steps = 0;
  const start = performance.now();
  try {
    for (let seed = 0; performance.now() - start < seconds * 1000; seed++) {
      await env.reset(seed);
      for (let turn = 0; turn < env.meta.maxTurns; turn++) {
        const result = await env.step(await env.solve());
        steps++;
        if (result.terminated) break;
      }
    }
  } finally {
    await env.close();
  }
  return steps / ((performance.now() - start) / 1000);
}

function pythonStepsPerSecond(seconds: number): number {
  const run = spawnSync("python3", [PYTHON_SCRIPT, String(seconds)], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`python3 benchmark failed: ${run.stderr || run.error?.message}`);
  return (JSON.parse(run.stdout.trim()) as { steps_per_second: number }).steps_per_second;
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 3);
  process.stdout.write(`environment: ${ENV_NAME} (oracle play: one solve + one step per turn), ${seconds} s per measurement\n`);
  const rates: Partial<Record<SandboxBackendName, number>> = {};
  for (const backend of SANDBOX_BACKENDS) {
    rates[backend] = await sandboxStepsPerSecond(backend, seconds);
    process.stdout.write(`${backend}: ${rates[backend]!.toFixed(0)} steps/s\n`);
  }
  const python = pythonStepsPerSecond(seconds);
  process.stdout.write(`python in-process (exec, no isolation): ${python.toFixed(0)} steps/s\n`);
  process.stdout.write(`sandbox_vs_python_inprocess_ratio=${(rates["isolated-vm"]! / python).toFixed(3)}\n`);
}

await main();
