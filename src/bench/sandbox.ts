/**
 * @module bench/sandbox
 * Benchmark (not a test): steps per second of one library environment under each sandbox
 * backend and, in the same run on the same machine, the same environment written in Python and
 * run in-process with `exec` (the reference's unisolated way), and the line
 * `sandbox_vs_python_inprocess_ratio=<isolated-vm / python>` (the JavaScript rows). Then the Python sandbox: a light and a
 * heavy Python game (an echo game; vault-cracker in Python, which filters 5,040 candidates per
 * step) in jailed CPython against the same program exec'd in-process, with their ratios.
 *
 * Usage: npm run bench:sandbox [-- SECONDS]   (default 3 seconds per measurement)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Env } from "../env/index.js";
import { resolveProgram } from "../envs/index.js";
import { VAULT_CRACKER_PY } from "../envs/testing/python-library.js";
import { loadProgram, SANDBOX_BACKENDS, type SandboxBackendName } from "../sandbox/index.js";

const ENV_NAME = "vault-cracker";
const PYTHON_SCRIPT = fileURLToPath(new URL("../../bench/python_inprocess.py", import.meta.url));
const PYTHON_PROGRAM_SCRIPT = fileURLToPath(
  new URL("../../bench/python_program_inprocess.py", import.meta.url),
);

/** The light Python game: the oracle names a number the step only compares. */
const LIGHT_PY = `class EchoEnv:
    meta = {"name": "echo", "skill": "Memory Recall", "description": "Repeat the number.", "maxTurns": 10, "tools": []}
    def reset(self, seed=None):
        self.n = random.randint(0, 999)
        self.turn = 0
        return "Say %d." % self.n, {}
    def step(self, action):
        self.turn += 1
        done = self.turn == 10
        return "ok", (1.0 if done else 0.0), done, False, {}
    def solve(self):
        return "\\\\boxed{%d}" % self.n
`;

/**
 * Plays oracle episodes of a loaded `env` for `seconds`, then closes it; steps per second
 * (`step` calls, each preceded by a `solve`).
 */
async function oracleStepsPerSecond(env: Env, seconds: number): Promise<number> {
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

/** Oracle play of a Python program in the Python sandbox for \`seconds\`. */
async function pythonSandboxStepsPerSecond(source: string, seconds: number): Promise<number> {
  return oracleStepsPerSecond(await loadProgram(source, { language: "python" }), seconds);
}

/** The same program exec'd in-process by python3 (the reference's way). */
function pythonProgramInProcess(source: string, seconds: number): number {
  const dir = mkdtempSync(join(tmpdir(), "spade-bench-"));
  try {
    const path = join(dir, "program.py");
    writeFileSync(path, source);
    const run = spawnSync("python3", [PYTHON_PROGRAM_SCRIPT, path, String(seconds)], {
      encoding: "utf8",
    });
    if (run.status !== 0)
      throw new Error(`python3 benchmark failed: ${run.stderr || run.error?.message}`);
    return (JSON.parse(run.stdout.trim()) as { steps_per_second: number }).steps_per_second;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Plays oracle episodes for `seconds`; counts `step` calls (each preceded by a `solve`). */
async function sandboxStepsPerSecond(
  backend: SandboxBackendName,
  seconds: number,
): Promise<number> {
  return oracleStepsPerSecond(
    await loadProgram(resolveProgram(ENV_NAME).source, { backend }),
    seconds,
  );
}

function pythonStepsPerSecond(seconds: number): number {
  const run = spawnSync("python3", [PYTHON_SCRIPT, String(seconds)], { encoding: "utf8" });
  if (run.status !== 0)
    throw new Error(`python3 benchmark failed: ${run.stderr || run.error?.message}`);
  return (JSON.parse(run.stdout.trim()) as { steps_per_second: number }).steps_per_second;
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 3);
  process.stdout.write(
    `environment: ${ENV_NAME} (oracle play: one solve + one step per turn), ${seconds} s per measurement\n`,
  );
  const rates: Partial<Record<SandboxBackendName, number>> = {};
  for (const backend of SANDBOX_BACKENDS) {
    rates[backend] = await sandboxStepsPerSecond(backend, seconds);
    process.stdout.write(`${backend}: ${rates[backend]!.toFixed(0)} steps/s\n`);
  }
  const python = pythonStepsPerSecond(seconds);
  process.stdout.write(`python in-process (exec, no isolation): ${python.toFixed(0)} steps/s\n`);
  process.stdout.write(
    `sandbox_vs_python_inprocess_ratio=${(rates["isolated-vm"]! / python).toFixed(3)}\n`,
  );
  for (const [label, source] of [
    ["light (echo)", LIGHT_PY],
    ["heavy (vault-cracker)", VAULT_CRACKER_PY],
  ] as const) {
    const jailed = await pythonSandboxStepsPerSecond(source, seconds);
    const inProcess = pythonProgramInProcess(source, seconds);
    process.stdout.write(
      `python sandbox, ${label}: ${jailed.toFixed(0)} steps/s; same program in-process: ${inProcess.toFixed(0)} steps/s; ratio ${(jailed / inProcess).toFixed(3)}\n`,
    );
  }
}

await main();
