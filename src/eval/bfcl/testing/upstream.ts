/**
 * @module eval/bfcl/testing/upstream
 * Runs upstream's checker (the project venv's `bfcl_eval`, requirements-test.txt) through one of
 * the cross-check scripts here, on cases written to a scratch file; returns its verdicts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The project virtualenv's Python. */
export const VENV_PYTHON = fileURLToPath(new URL("../../../../.venv/bin/python", import.meta.url));

/** Why upstream's checker cannot run here, or null when the venv's Python is there. */
export const VENV_MISSING = existsSync(VENV_PYTHON)
  ? null
  : `no .venv Python at ${VENV_PYTHON} (bash scripts/setup-python.sh installs requirements-test.txt)`;

/**
 * The site-packages folder of the venv's `bfcl_eval` wheel (the one holding `bfcl_eval/data`),
 * or null when the venv or the wheel is not installed.
 */
export function bfclWheelRoot(): string | null {
  const lib = fileURLToPath(new URL("../../../../.venv/lib/", import.meta.url));
  if (!existsSync(lib)) return null;
  for (const py of readdirSync(lib)) {
    const root = join(lib, py, "site-packages");
    if (existsSync(join(root, "bfcl_eval/data"))) return root;
  }
  return null;
}

/** The skip reason when `bfclWheelRoot()` finds nothing. */
export const WHEEL_MISSING =
  "no bfcl_eval wheel in .venv (bash scripts/setup-python.sh installs requirements-test.txt)";

/** Upstream's verdict per case key: valid, and the error type when not. */
export type UpstreamVerdicts = Record<string, [boolean, string | null]>;

/**
 * Runs `script` (a file name in this folder) on `cases` (JSON text) and `dataDir`. Throws with
 * the script's stderr when it exits non-zero.
 */
export function upstreamVerdicts(
  script: string,
  cases: string,
  dataDir: string,
  limits: { maxBufferBytes: number; timeoutMs: number },
): UpstreamVerdicts {
  const dir = mkdtempSync(join(tmpdir(), "bfcl-xc-"));
  try {
    const file = join(dir, "cases.json");
    writeFileSync(file, cases);
    const scriptPath = fileURLToPath(new URL(script, import.meta.url));
    const run = spawnSync(VENV_PYTHON, [scriptPath, file, dataDir], {
      encoding: "utf8",
      maxBuffer: limits.maxBufferBytes,
      timeout: limits.timeoutMs,
    });
    if (run.status !== 0)
      throw new Error(`${script} exited with ${run.status ?? run.signal}: ${run.stderr}`);
    return JSON.parse(run.stdout) as UpstreamVerdicts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
