/**
 * @module eval/suites/gold
 * The graders' positive self-check: every item's reference, written as a model would answer
 * (the environment's `solve()`), is played through the item's own environment and must score 1.
 */
import type { JsonObject } from "../../env/index.js";
import { oracleTurn } from "../../env/oracle.js";
import { PythonSandbox } from "./code/python-sandbox.js";
import { mapLimit } from "../../policy/index.js";
import { isCodeSuite, isSuiteName, loadSuite, type LoadSuiteOptions } from "./load.js";
import type { EvalItem, SuiteName } from "./types.js";

/** Result of a gold check. */
export interface GoldReport {
  suite: SuiteName;
  /** Items checked. */
  items: number;
  /** Items whose reference scored 1. */
  correct: number;
  /** The items that did not, with the step's info (or the error). */
  failures: Array<{ id: string; info: JsonObject }>;
  /** Wall time of the check. */
  durationMs: number;
}

/** Plays the oracle action through one item's environment; true when the reward is 1. */
async function playOracle(item: EvalItem): Promise<{ correct: boolean; info: JsonObject }> {
  const env = item.createEnv();
  try {
    await env.reset(0);
    const step = (await oracleTurn(env)).result;
    return { correct: step.reward === 1, info: step.info };
  } finally {
    await env.close();
  }
}

/**
 * Runs the gold self-check of `suite`. For code suites the sandbox is created first, so a machine
 * without isolation fails fast with E_SANDBOX_UNAVAILABLE instead of failing every item.
 */
export async function goldCheck(
  suite: SuiteName,
  options: LoadSuiteOptions = {},
): Promise<GoldReport> {
  const started = Date.now();
  let loadOptions = options;
  let concurrency = 4;
  if (isSuiteName(suite) && isCodeSuite(suite) && !options.runner) {
    const sandbox = await PythonSandbox.create(options.sandbox);
    loadOptions = { ...options, runner: sandbox };
    // Twice the sandbox's own bound keeps it busy; the sandbox still caps the processes.
    concurrency = 2 * (options.sandbox?.maxConcurrency ?? 4);
  }
  const items = await loadSuite(suite, loadOptions);
  // A rejection here is a configuration error (e.g. the sandbox went away): fatal, not a wrong item.
  const results = await mapLimit(items, concurrency, playOracle);
  const failures = results.flatMap((r, i) =>
    r.correct ? [] : [{ id: (items[i] as EvalItem).id, info: r.info }],
  );
  return {
    suite,
    items: items.length,
    correct: items.length - failures.length,
    failures,
    durationMs: Date.now() - started,
  };
}
