/**
 * @module eval/suites/types
 * What a held-out item is: a question, a reference, a grader of one action, and a factory for the
 * single-turn `Env` that evaluation runs through the same rollout code as training.
 */
import type { Action, Env } from "../../env/index.js";
import type { Graded } from "../episode.js";

/** The suites this module serves. */
export const SUITE_NAMES = ["gsm8k", "math500", "humaneval", "mbpp", "bbh"] as const;

/** One suite name. */
export type SuiteName = (typeof SUITE_NAMES)[number];

/** The verdict on one action. `info` says why (the extracted answer, the run outcome...). */
export type Grade = Graded;

/** The data of one held-out item, independent of any episode. */
export interface ItemSpec {
  /** The suite it belongs to. */
  suite: SuiteName;
  /** Stable id within the suite, e.g. `gsm8k/17`, `HumanEval/0`, `bbh/navigate/3`. */
  id: string;
  /** The first observation: the question and how to answer. */
  prompt: string;
  /** The reference answer as people read it (an answer, or code). */
  reference: string;
  /** The reference written as a model would answer: the oracle's action text. */
  oracleText: string;
  /** The privileged hint (the reference, shortened to the contract's 2,000 characters). */
  hint: string;
  /** Grades one action. Rejects only for configuration errors (e.g. no sandbox available). */
  grade(action: Action): Promise<Grade>;
}

/** A held-out item: its data plus a factory for a fresh single-turn environment. */
export interface EvalItem extends ItemSpec {
  /** A fresh `Env` for one episode of this item. */
  createEnv(): Env;
}
