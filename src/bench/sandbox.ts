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
 * in-process, with their ratios (skipped, with the reason, where the jail cannot start). Then the
 * code suites' sandbox (bench/sandbox-code.ts): one short program's run time without and with a
 * memory cgroup per run, `code_sandbox_run_ms=` and `code_sandbox_cgroup_cost_ratio=`.
 *
 * With `--baseline DIR` (another checkout, built with `npm run build`), it then measures the light
 * environment on both trees in the same run, alternately (which tree goes first alternates too),
 * `--rounds` times (default 3) per row, and prints each tree's median steps/s and CPU µs per step and `light_speedup_<backend>_<episodes>=`
 * (this tree's median steps/s over the baseline's) and `light_cpu_ratio_<backend>_<episodes>=`
 * (the baseline's median CPU per step over this tree's), then `checkEnv` over the library on both
 * trees alternately, with `checkenv_speedup_<backend>=` and `checkenv_cpu_ratio_<backend>=`,
 * and the code sandbox's run time on both, `code_sandbox_speedup=`.
 * `--baseline-only` skips the other rows.
 * The machine's load average is printed at the start and the end.
 *
 * Usage: npm run bench:sandbox [-- SECONDS] [--baseline DIR [--rounds N] [--baseline-only]]
 *   (default 3 seconds per measurement)
 */
import { parseArgs } from "node:util";
import { isSpadeError, SpadeError } from "../errors.js";
import { VAULT_CRACKER_PY } from "../envs/testing/python-library.js";
import { resolveProgram } from "../envs/index.js";
import { SANDBOX_BACKENDS, type SandboxBackendName } from "../sandbox/index.js";
import { printBareBoundary } from "./bare-boundary.js";
import { loadLine } from "./cpu.js";
import { baselineTree, compareWithBaseline } from "./sandbox-baseline.js";
import { baselineCodeSandbox, printCodeSandboxRows } from "./sandbox-code.js";
import { checkEnvTimes } from "./sandbox-checkenv.js";
import {
  CONCURRENT_EPISODES,
  lastCpuPerStepUs,
  programStepsPerSecond,
  sandboxStepsPerSecond,
  solveThenStep,
  timeouts,
} from "./sandbox-play.js";
import { ENV_NAME, LIGHT_JS, LIGHT_PY } from "./sandbox-programs.js";
import {
  pythonProgramInProcess,
  pythonSandboxStepsPerSecond,
  pythonStepsPerSecond,
} from "./sandbox-python.js";

/** The command line: seconds per measurement, and the baseline comparison's options. */
function parseOptions(): {
  seconds: number;
  rounds: number;
  baselineDir: string | undefined;
  baselineOnly: boolean;
} {
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
  return {
    seconds,
    rounds,
    baselineDir: values.baseline,
    baselineOnly: values["baseline-only"] as boolean,
  };
}

/** The library environment per backend against its Python twin exec'd in-process, and the ratio. */
async function printLibraryRows(seconds: number): Promise<void> {
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
}

/**
 * The light and heavy rows per backend at 1 and `CONCURRENT_EPISODES` episodes, the bare
 * boundary, the two-round-trip row and the light ratio to `lightInProcess` (the light Python game
 * exec'd in-process, steps/s).
 */
async function printLightHeavyRows(seconds: number, lightInProcess: number): Promise<void> {
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
}

/** `checkEnv` over the library per backend, with this tree's validator. */
async function printCheckEnvRows(): Promise<void> {
  for (const backend of SANDBOX_BACKENDS) {
    const t = await checkEnvTimes(backend);
    process.stdout.write(
      `${backend}: checkEnv over the library (${t.count} programs): median ${t.medianMs.toFixed(0)} ms (CPU ${t.cpuMs.toFixed(0)} ms), max ${t.maxMs.toFixed(0)} ms` +
        (t.failed.length ? `; failed: ${t.failed.join("; ")}` : "") +
        "\n",
    );
  }
}

/** The light and heavy Python games in the Python sandbox against the same programs in-process. */
async function printPythonSandboxRows(seconds: number, lightInProcess: number): Promise<void> {
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
}

/** Runs per row of the code sandbox's rows. */
const CODE_SANDBOX_RUNS = 30;

async function main(): Promise<void> {
  const { seconds, rounds, baselineDir, baselineOnly } = parseOptions();
  const baseline = baselineDir === undefined ? undefined : await baselineTree(baselineDir);
  process.stdout.write(loadLine());
  if (baseline && baselineOnly) {
    await printBareBoundary(seconds, CONCURRENT_EPISODES);
    await compareWithBaseline(baseline, baselineDir as string, seconds, rounds);
    await printCodeSandboxRows(CODE_SANDBOX_RUNS, await baselineCodeSandbox(baselineDir as string));
    process.stdout.write(loadLine());
    return;
  }
  await printLibraryRows(seconds);
  const lightInProcess = pythonProgramInProcess(LIGHT_PY, seconds);
  await printLightHeavyRows(seconds, lightInProcess);
  await printCheckEnvRows();
  await printPythonSandboxRows(seconds, lightInProcess);
  const codeBaseline =
    baselineDir === undefined ? undefined : await baselineCodeSandbox(baselineDir);
  await printCodeSandboxRows(CODE_SANDBOX_RUNS, codeBaseline);
  if (baseline) await compareWithBaseline(baseline, baselineDir as string, seconds, rounds);
  process.stdout.write(loadLine());
}

await main();
