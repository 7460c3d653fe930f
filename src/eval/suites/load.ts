/**
 * @module eval/suites/load
 * `loadSuite(name)`: the items of a held-out suite, each with a factory for its single-turn `Env`,
 * ready for the rollout code (and for `spade eval SUITE --policy ...`).
 */
import { SpadeError } from "../../errors.js";
import { loadBbh } from "./bbh/suite.js";
import { PythonSandbox, type PythonSandboxOptions } from "./code/python-sandbox.js";
import { loadHumanEval, loadMbpp, type PythonRunner, type RunnerProvider } from "./code/suites.js";
import { dataRoot } from "../data.js";
import { loadGsm8k, loadMath500 } from "./math/suites.js";
import { toEvalItem } from "./single-turn-env.js";
import { SUITE_NAMES, type EvalItem, type SuiteName } from "./types.js";

/** Options of `loadSuite`. */
export interface LoadSuiteOptions {
  /** Only the first `limit` items of the suite (BBH: in task-name order). Default all. */
  limit?: number;
  /** The data folder. Default the user-level one (see `dataRoot`; no environment is read here). */
  dataDir?: string;
  /** Code suites: the runner of check programs. Default a `PythonSandbox`, created on first use. */
  runner?: PythonRunner;
  /** Code suites: options of the default sandbox (limits, concurrency, allowNoIsolation...). */
  sandbox?: PythonSandboxOptions;
  /** BBH: only these tasks (file names without `.json`). Default all 27. */
  bbhTasks?: readonly string[];
}

/** True when `name` is a suite name. */
export function isSuiteName(name: string): name is SuiteName {
  return (SUITE_NAMES as readonly string[]).includes(name);
}

/** True for suites graded by running code. */
export function isCodeSuite(name: SuiteName): boolean {
  return name === "humaneval" || name === "mbpp";
}

/** A provider that creates the sandbox once, on first use; a failure (E_SANDBOX_UNAVAILABLE) is re-thrown to every caller. */
export function lazyRunner(options: Pick<LoadSuiteOptions, "runner" | "sandbox">): RunnerProvider {
  let pending: Promise<PythonRunner> | undefined;
  return () => {
    if (options.runner) return Promise.resolve(options.runner);
    pending ??= PythonSandbox.create(options.sandbox);
    return pending;
  };
}

/**
 * The items of suite `name` (gsm8k, math500, humaneval, mbpp, bbh). Throws E_NOT_FOUND for an
 * unknown suite and E_IO when the data cannot be read.
 */
export async function loadSuite(name: string, options: LoadSuiteOptions = {}): Promise<EvalItem[]> {
  if (!isSuiteName(name)) {
    throw new SpadeError("E_NOT_FOUND", `unknown evaluation suite "${name}"`, {
      nextStep: `one of ${SUITE_NAMES.join(", ")}`,
    });
  }
  const root = options.dataDir ?? dataRoot();
  const runner = lazyRunner(options);
  const specs = await (() => {
    switch (name) {
      case "gsm8k":
        return loadGsm8k(root, options.limit);
      case "math500":
        return loadMath500(root, options.limit);
      case "humaneval":
        return loadHumanEval(root, runner, options.limit);
      case "mbpp":
        return loadMbpp(root, runner, options.limit);
      case "bbh":
        return loadBbh(root, options.limit, options.bbhTasks);
    }
  })();
  return specs.map(toEvalItem);
}
