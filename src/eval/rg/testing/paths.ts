/**
 * @module eval/rg/testing/paths
 * Where tests find the hard split (the data folder: ../shared/benchmarks in tests) and the
 * project's .venv with reasoning-gym; suites skip with these reasons when either is absent.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dataRoot } from "../../data.js";
import { PROJECT_VENV_PYTHON } from "../worker.js";

/** The benchmarks folder (`dataRoot`; tests set SPADE_DATA_DIR to ../shared/benchmarks), with a trailing slash. */
export const BENCHMARKS_DIR = `${dataRoot({ env: process.env })}/`;

/** Whether the hard split's file is present. */
export const RG_DATA_PRESENT = existsSync(`${BENCHMARKS_DIR}reasoning-gym/hard.json`);

/** Whether .venv has reasoning_gym (scripts/setup-python.sh installs it). */
export const RG_VENV_READY =
  existsSync(PROJECT_VENV_PYTHON) &&
  spawnSync(PROJECT_VENV_PYTHON, ["-c", "import reasoning_gym"], { stdio: "ignore" }).status === 0;

/** Skip reason when the data or the package is missing. */
export const RG_MISSING = `needs ../shared/benchmarks/reasoning-gym/hard.json and .venv with reasoning-gym (bash scripts/setup-python.sh)`;
