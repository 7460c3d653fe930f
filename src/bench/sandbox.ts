/**
 * @module bench/sandbox
 * Benchmark (not a test): steps per second of one library environment under each sandbox
 * backend and, in the same run on the same machine, the same environment written in Python and
 * run in-process with `exec` (the reference's unisolated way), and the line
 * `sandbox_vs_python_inprocess_ratio=<isolated-vm / python>` (the JavaScript rows). Then, per
 * JavaScript backend, a light environment (a few arithmetic operations per step) and a
 * compute-heavy one (vault-cracker) at 1 and 64 concurrent episodes (oracle turns through
 * `oracleTurn`: one round trip where the backend can), the light one once more in two round trips
 * (`solve()` then `step()`) for comparison in the same run, each row with its CPU time per step
 * (this process and its sandbox processes: a figure the machine's load hardly moves), and
 * `sandbox_light_vs_python_inprocess_ratio=<isolated-vm light, one episode / the light Python
 * game exec'd in-process>`; `checkEnv`'s median time (and CPU) over the library per backend. Then the
 * Python sandbox: a light and a heavy Python game (an echo game; vault-cracker in Python, which
 * filters 5,040 candidates per step) in jailed CPython against the same program exec'd
 * in-process, with their ratios (skipped, with the reason, where the jail cannot start).
 *
 * With `--baseline DIR` (another checkout, built with `npm run build`), it then measures the light
 * environment on both trees in the same run, alternately (which tree goes first alternates too),
 * `--rounds` times (default 3) per row, and prints each tree's median steps/s and CPU µs per step and `light_speedup_<backend>_<episodes>=`
 * (this tree's median steps/s over the baseline's) and `light_cpu_ratio_<backend>_<episodes>=`
 * (the baseline's median CPU per step over this tree's), then `checkEnv` over the library on both
 * trees alternately, with `checkenv_speedup_<backend>=` and `checkenv_cpu_ratio_<backend>=`.
 * `--baseline-only` skips the other rows.
 * The machine's load average is printed at the start and the end.
 *
 * Usage: npm run bench:sandbox [-- SECONDS] [--baseline DIR [--rounds N] [--baseline-only]]
 *   (default 3 seconds per measurement)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkEnv } from "../env/check.js";
import type { Env, OracleTurn } from "../env/index.js";
import { oracleTurn } from "../env/oracle.js";
import { libraryNames, resolveProgram } from "../envs/index.js";
import { isSpadeError, SpadeError } from "../errors.js";
import { VAULT_CRACKER_PY } from "../envs/testing/python-library.js";
import { loadProgram, SANDBOX_BACKENDS, type SandboxBackendName } from "../sandbox/index.js";
import { printBareBoundary } from "./bare-boundary.js";
import { cpuMicros, loadLine, median } from "./cpu.js";

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

/** The light JavaScript environment: the same game as LIGHT_PY, a few arithmetic operations a step. */
const LIGHT_JS = `class Environment {
  static meta = { name: "echo", skill: "Memory Recall", description: "Repeat the number.", maxTurns: 10, tools: [] };
  reset(seed) {
    this.n = Math.floor(Math.random() * 1000);
    this.turn = 0;
    return { observation: "Say " + this.n + ".", info: {} };
  }
  step(action) {
    this.turn += 1;
    const done = this.turn === 10;
    return { observation: "ok", reward: done ? 1 : 0, terminated: done, truncated: false, info: {} };
  }
  hint() { return "say the number"; }
  solve() { return { text: "\\\\boxed{" + this.n + "}" }; }
}
`;

/** Episodes in flight in the concurrent rows. */
const CONCURRENT_EPISODES = 64;

/** CPU µs per step of the last measured row (see `cpuMicros`). */
let lastCpuPerStepUs = 0;

/** Calls that ran past their deadline during the rows (a loaded machine); their episodes end. */
let timeouts = 0;

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
async function solveThenStep(env: Env): Promise<OracleTurn> {
  const action = await env.solve();
  return { action, result: await env.step(action) };
}

/**
 * Plays oracle episodes of a loaded `env` for `seconds`, then closes it; steps per second
 * (`step` calls, each preceded by a `solve`).
 */
async function oracleStepsPerSecond(env: Env, seconds: number): Promise<number> {
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
type ProgramLoader = (source: string, options: { backend: SandboxBackendName }) => Promise<Env>;

/** Steps per second of `source` on `backend` with `episodes` environments playing at once. */
async function programStepsPerSecond(
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

/** How a tree validates an environment (this tree's `checkEnv`, or a baseline's). */
type Checker = typeof checkEnv;

/** What the baseline comparison runs of a tree: its `loadProgram` and its `checkEnv`. */
interface Tree {
  load: ProgramLoader;
  check: Checker;
}

/** This tree's `loadProgram` and `checkEnv`. */
const THIS_TREE: Tree = { load: loadProgram, check: checkEnv };

/** The export `name` of `DIR/dist/<path>` in another built checkout. */
async function baselineExport<T>(dir: string, path: string, name: string): Promise<T> {
  const entry = join(resolve(dir), "dist", path);
  if (!existsSync(entry)) {
    throw new SpadeError("E_CONFIG", `--baseline: ${entry} does not exist`, {
      nextStep: "give a checkout of SPADE built with `npm run build`",
    });
  }
  const value = ((await import(pathToFileURL(entry).href)) as Record<string, unknown>)[name];
  if (typeof value !== "function") {
    throw new SpadeError("E_CONFIG", `--baseline: ${entry} exports no ${name}`, {
      nextStep: `give a checkout of SPADE (its dist/${path})`,
    });
  }
  return value as T;
}

/** The `loadProgram` and `checkEnv` of another built checkout. */
async function baselineTree(dir: string): Promise<Tree> {
  return {
    load: await baselineExport<ProgramLoader>(dir, "sandbox/index.js", "loadProgram"),
    check: await baselineExport<Checker>(dir, "env/check.js", "checkEnv"),
  };
}

/**
 * Runs `measure` on both trees, `rounds` times; the tree measured first alternates, so neither
 * gains from going second (warm caches).
 */
async function alternately(
  rounds: number,
  measure: (tree: "baseline" | "this") => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0 ? (["baseline", "this"] as const) : (["this", "baseline"] as const);
    for (const tree of order) await measure(tree);
  }
}

/**
 * The light environment on this tree and on the baseline, alternately, `rounds` times per backend
 * and episode count; prints every measurement, the medians and the two ratio lines. Then
 * `checkEnv` over the library per backend, the trees alternately, `rounds` times, and
 * `checkenv_speedup_<backend>=` (the baseline's median time over this tree's) and
 * `checkenv_cpu_ratio_<backend>=` (the same for the median CPU time of one validation).
 */
async function compareWithBaseline(
  baseline: Tree,
  dir: string,
  seconds: number,
  rounds: number,
): Promise<void> {
  process.stdout.write(
    `light (echo) against the baseline ${dir}, alternately, ${rounds} rounds per row\n`,
  );
  for (const backend of SANDBOX_BACKENDS) {
    for (const episodes of [1, CONCURRENT_EPISODES]) {
      const rates = { baseline: [] as number[], this: [] as number[] };
      const cpu = { baseline: [] as number[], this: [] as number[] };
      await alternately(rounds, async (tree) => {
        const rate = await programStepsPerSecond(
          LIGHT_JS,
          backend,
          episodes,
          seconds,
          oracleTurn,
          tree === "baseline" ? baseline.load : loadProgram,
        );
        rates[tree].push(rate);
        cpu[tree].push(lastCpuPerStepUs);
        process.stdout.write(
          `  ${backend}, ${episodes} concurrent, ${tree === "this" ? "this tree" : "baseline"}: ${rate.toFixed(0)} steps/s, ${lastCpuPerStepUs.toFixed(0)} µs CPU/step\n`,
        );
      });
      const row = `${backend.replace("-", "")}_${episodes}`;
      process.stdout.write(
        `${backend}, light (echo), ${episodes} concurrent, medians: baseline ${median(rates.baseline).toFixed(0)} steps/s ${median(cpu.baseline).toFixed(0)} µs CPU/step, this tree ${median(rates.this).toFixed(0)} steps/s ${median(cpu.this).toFixed(0)} µs CPU/step\n` +
          `light_speedup_${row}=${(median(rates.this) / median(rates.baseline)).toFixed(2)}\n` +
          `light_cpu_ratio_${row}=${(median(cpu.baseline) / median(cpu.this)).toFixed(2)}\n`,
      );
    }
  }
  for (const backend of SANDBOX_BACKENDS) {
    const medians = { baseline: [] as number[], this: [] as number[] };
    const cpu = { baseline: [] as number[], this: [] as number[] };
    await alternately(rounds, async (tree) => {
      const t = await checkEnvTimes(backend, tree === "this" ? THIS_TREE : baseline);
      medians[tree].push(t.medianMs);
      cpu[tree].push(t.cpuMs);
      process.stdout.write(
        `  ${backend}, checkEnv over the library, ${tree === "this" ? "this tree" : "baseline"}: median ${t.medianMs.toFixed(1)} ms (CPU ${t.cpuMs.toFixed(1)} ms), max ${t.maxMs.toFixed(0)} ms${t.failed.length ? `; failed: ${t.failed.join("; ")}` : ""}\n`,
      );
    });
    const row = backend.replace("-", "");
    process.stdout.write(
      `${backend}, checkEnv over the library, medians of the rounds' medians: baseline ${median(medians.baseline).toFixed(1)} ms (CPU ${median(cpu.baseline).toFixed(1)} ms), this tree ${median(medians.this).toFixed(1)} ms (CPU ${median(cpu.this).toFixed(1)} ms)\n` +
        `checkenv_speedup_${row}=${(median(medians.baseline) / median(medians.this)).toFixed(2)}\n` +
        `checkenv_cpu_ratio_${row}=${(median(cpu.baseline) / median(cpu.this)).toFixed(2)}\n`,
    );
  }
}

/**
 * `checkEnv` over every library program on `backend` with `tree`'s validator and loader: its
 * median and largest time, in ms, and the median CPU time of one validation (this process and its
 * sandbox processes), in ms.
 */
async function checkEnvTimes(
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
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      baseline: { type: "string" },
      rounds: { type: "string", default: "3" },
      "baseline-only": { type: "boolean", default: false },
    },
  });
  const seconds = Number(positionals[0] ?? 3);
  const rounds = Number(values.rounds);
  if (!(seconds > 0) || !Number.isSafeInteger(rounds) || rounds < 1) {
    throw new SpadeError(
      "E_CONFIG",
      "bench:sandbox: SECONDS must be positive, --rounds a positive integer",
      {
        nextStep: "npm run bench:sandbox -- 3 --baseline ../spade-main --rounds 3",
      },
    );
  }
  const baseline = values.baseline === undefined ? undefined : await baselineTree(values.baseline);
  process.stdout.write(loadLine());
  if (baseline && values["baseline-only"]) {
    await printBareBoundary(seconds, CONCURRENT_EPISODES);
    await compareWithBaseline(baseline, values.baseline as string, seconds, rounds);
    process.stdout.write(loadLine());
    return;
  }
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
  const lightInProcess = pythonProgramInProcess(LIGHT_PY, seconds);
  const light: Partial<Record<SandboxBackendName, number>> = {};
  for (const backend of SANDBOX_BACKENDS) {
    for (const [label, source] of [
      ["light (echo)", LIGHT_JS],
      ["heavy (vault-cracker)", resolveProgram(ENV_NAME).source],
    ] as const) {
      for (const episodes of [1, CONCURRENT_EPISODES]) {
        const rate = await programStepsPerSecond(source, backend, episodes, seconds);
        if (episodes === 1 && label.startsWith("light")) light[backend] = rate;
        process.stdout.write(
          `${backend}, ${label}, ${episodes} concurrent: ${rate.toFixed(0)} steps/s, ${lastCpuPerStepUs.toFixed(0)} µs CPU/step\n`,
        );
      }
    }
  }
  await printBareBoundary(seconds, CONCURRENT_EPISODES);
  const twoTrips = await programStepsPerSecond(LIGHT_JS, "isolated-vm", 1, seconds, solveThenStep);
  process.stdout.write(
    `isolated-vm, light (echo), 1 concurrent, solve() then step() (two round trips): ${twoTrips.toFixed(0)} steps/s, ${lastCpuPerStepUs.toFixed(0)} µs CPU/step\n` +
      (timeouts
        ? `calls past their deadline during these rows (episodes ended): ${timeouts}\n`
        : "") +
      `python in-process, light (echo): ${lightInProcess.toFixed(0)} steps/s\n` +
      `sandbox_light_vs_python_inprocess_ratio=${(light["isolated-vm"]! / lightInProcess).toFixed(4)}\n`,
  );
  for (const backend of SANDBOX_BACKENDS) {
    const t = await checkEnvTimes(backend);
    process.stdout.write(
      `${backend}: checkEnv over the library (${t.count} programs): median ${t.medianMs.toFixed(0)} ms (CPU ${t.cpuMs.toFixed(0)} ms), max ${t.maxMs.toFixed(0)} ms` +
        (t.failed.length ? `; failed: ${t.failed.join("; ")}` : "") +
        "\n",
    );
  }
  for (const [label, source] of [
    ["light (echo)", LIGHT_PY],
    ["heavy (vault-cracker)", VAULT_CRACKER_PY],
  ] as const) {
    let jailed: number;
    try {
      jailed = await pythonSandboxStepsPerSecond(source, seconds);
    } catch (err) {
      if (!isSpadeError(err, "E_SANDBOX_UNAVAILABLE")) throw err;
      process.stdout.write(`python sandbox: skipped (${err.message})\n`);
      break;
    }
    const inProcess = label.startsWith("light")
      ? lightInProcess
      : pythonProgramInProcess(source, seconds);
    process.stdout.write(
      `python sandbox, ${label}: ${jailed.toFixed(0)} steps/s; same program in-process: ${inProcess.toFixed(0)} steps/s; ratio ${(jailed / inProcess).toFixed(3)}\n`,
    );
  }
  if (baseline) await compareWithBaseline(baseline, values.baseline as string, seconds, rounds);
  process.stdout.write(loadLine());
}

await main();
