/**
 * @module eval/run/types
 * What a model evaluation is made of: tasks (anything that opens an `Env`), the record of one
 * sampled episode, and the results of one item, as they are written to its results file.
 */
import type { Env, JsonObject } from "../../env/index.js";
import type { FailureStage } from "../../rollout/index.js";

/** One evaluated item: a suite item, a BFCL entry, an ACEBench entry. */
export interface EvalTask {
  /** Unique within the run; names the item's results file. */
  id: string;
  /** Row of the summary table: the suite, BBH task, BFCL category or ACEBench set. */
  group: string;
  /** A fresh environment for one episode. */
  open(): Env | Promise<Env>;
}

/** One sampled episode of an item, as recorded. */
export interface SampleRecord {
  /** 0-based sample index (also the episode's seed). */
  sample: number;
  seed: number;
  return: number;
  /** Counted as correct: no failure and a return of at least 0.99. */
  success: boolean;
  turns: number;
  /** Why the episode failed (server error, sandbox error...), or null. A failed sample counts as wrong. */
  failure: string | null;
  failureStage: FailureStage | null;
  failureCode: string | null;
  /** Benchmark-specific scores (ACEBench: `endToEnd`, `process`; BFCL: the checker's verdict). */
  metrics: JsonObject;
  /** What was seen and done: first observation, steps, and the chat messages when a model played. */
  transcript: JsonObject;
}

/** The results file of one item. */
export interface ItemResult {
  id: string;
  group: string;
  /** Samples in index order. */
  samples: SampleRecord[];
  /** Correct samples / samples: this item's pass@1 averaged over its samples. */
  accuracy: number;
}

/** What identifies a run; written to `run.json` and checked on `--resume`. */
export interface RunInfo {
  /** e.g. `gsm8k`, `bfcl`, `acebench`. */
  benchmark: string;
  /** The policy's model name (`oracle` for the oracle). */
  model: string;
  /** Samples per item (K). */
  samples: number;
  /** Free-form settings recorded for people (categories, base URL...). */
  settings?: JsonObject;
}
