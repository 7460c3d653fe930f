/**
 * @module bench/sandbox-code
 * The sandbox benchmark's code-evaluation rows: a short program (`print('hi')`) run after run in
 * the code suites' Python sandbox (`eval/suites/code`), without cgroups and with them per
 * run, and in a baseline tree's sandbox where one is given, taking turns; prints each median,
 * `code_sandbox_run_ms=`, `code_sandbox_cgroup_cost_ratio=` (with over without) and
 * `code_sandbox_speedup=` (the baseline's median over this tree's, both without a cgroup).
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSpadeError } from "../errors.js";
import { PythonSandbox } from "../eval/suites/code/python-sandbox.js";
import { baselineExport } from "./sandbox-baseline.js";
import { median } from "./cpu.js";

/** The code sandbox's class, of this tree or of a baseline's. */
type SandboxClass = Pick<typeof PythonSandbox, "create">;

/** The `PythonSandbox` of another built checkout. */
export function baselineCodeSandbox(dir: string): Promise<SandboxClass> {
  return baselineExport<SandboxClass>(dir, "eval/suites/code/python-sandbox.js", "PythonSandbox");
}

/** Milliseconds of one run of `print('hi')`; a run that does not pass is an error. */
async function oneRunMs(sandbox: PythonSandbox): Promise<number> {
  const started = performance.now();
  const result = await sandbox.run("print('hi')\n");
  if (result.outcome !== "passed" || result.stdout !== "hi\n") {
    throw new Error(`code sandbox run ended ${result.outcome}: ${result.stderr.slice(-300)}`);
  }
  return performance.now() - started;
}

/** `runs` runs per row, the rows taking turns (the first of a turn rotates); prints the lines. */
export async function printCodeSandboxRows(runs: number, baseline?: SandboxClass): Promise<void> {
  const tmpDir = mkdtempSync(join(tmpdir(), "spade-bench-code-"));
  chmodSync(tmpDir, 0o711); // the sandbox user must be able to enter it
  try {
    const make = (cls: SandboxClass, cgroups: "off" | "auto") =>
      cls.create({ tmpDir, cgroups, maxConcurrency: 1 });
    let plain: PythonSandbox;
    try {
      plain = await make(PythonSandbox, "off");
    } catch (err) {
      if (!isSpadeError(err, "E_SANDBOX_UNAVAILABLE")) throw err;
      process.stdout.write(`code sandbox: skipped (${err.message})\n`);
      return;
    }
    const capped = await make(PythonSandbox, "auto");
    const rows: Array<[string, PythonSandbox]> = [["this tree", plain]];
    if (capped.cgroup) rows.push(["this tree, cgroups per run", capped]);
    if (baseline) rows.push(["baseline", await make(baseline, "off")]);
    const times = rows.map(() => [] as number[]);
    for (let run = 0; run < runs; run++) {
      for (let k = 0; k < rows.length; k++) {
        const row = (run + k) % rows.length;
        times[row]?.push(await oneRunMs(rows[row]?.[1] as PythonSandbox));
      }
    }
    const medians = times.map((t) => median(t));
    rows.forEach(([label], row) => {
      process.stdout.write(
        `code sandbox, print('hi'), ${label}: median ${medians[row]?.toFixed(1)} ms over ${runs} runs\n`,
      );
    });
    const [plainMs = 0, ...rest] = medians;
    process.stdout.write(`code_sandbox_run_ms=${plainMs.toFixed(1)}\n`);
    if (capped.cgroup) {
      process.stdout.write(
        `code_sandbox_cgroup_cost_ratio=${((rest[0] ?? 0) / plainMs).toFixed(3)}\n`,
      );
    } else {
      process.stdout.write("code sandbox: no cgroups on this machine (auto found none)\n");
    }
    if (baseline) {
      process.stdout.write(
        `code_sandbox_speedup=${((medians.at(-1) ?? 0) / plainMs).toFixed(2)}\n`,
      );
    }
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
}
