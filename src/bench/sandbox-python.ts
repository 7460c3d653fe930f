/**
 * @module bench/sandbox-python
 * The sandbox benchmark's Python side: a program played in the Python sandbox (jailed CPython),
 * and the reference's unisolated way, the same program exec'd in-process by python3.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadProgram } from "../sandbox/index.js";
import { oracleStepsPerSecond } from "./sandbox-play.js";

const PYTHON_SCRIPT = fileURLToPath(new URL("../../bench/python_inprocess.py", import.meta.url));
const PYTHON_PROGRAM_SCRIPT = fileURLToPath(
  new URL("../../bench/python_program_inprocess.py", import.meta.url),
);

/** Oracle play of a Python program in the Python sandbox for \`seconds\`. */
export async function pythonSandboxStepsPerSecond(
  source: string,
  seconds: number,
): Promise<number> {
  return oracleStepsPerSecond(await loadProgram(source, { language: "python" }), seconds);
}

/** The same program exec'd in-process by python3 (the reference's way). */
export function pythonProgramInProcess(source: string, seconds: number): number {
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

/** Steps per second of the library environment written in Python, exec'd in-process by python3. */
export function pythonStepsPerSecond(seconds: number): number {
  const run = spawnSync("python3", [PYTHON_SCRIPT, String(seconds)], { encoding: "utf8" });
  if (run.status !== 0)
    throw new Error(`python3 benchmark failed: ${run.stderr || run.error?.message}`);
  return (JSON.parse(run.stdout.trim()) as { steps_per_second: number }).steps_per_second;
}
