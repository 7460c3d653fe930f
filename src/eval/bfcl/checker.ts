/**
 * @module eval/bfcl/checker
 * Port of upstream's multi-turn evaluation (eval_runner's `_evaluate_single_multi_turn_entry`
 * and multi_turn_checker.py): re-execute the model's decoded calls and the ground truth on
 * fresh instances, and after every turn with ground truth require equal state (state checker)
 * and every ground-truth result present, as a multiset, among the model's results so far
 * (response checker).
 */
import type { BfclEntry } from "./data.js";
import { BfclInstances } from "./executor.js";
import { BfclSession, type BfclSessionOptions } from "./session.js";
import { stateChecker, type StateCheck } from "./state.js";
import { isLongContext } from "./categories.js";

/** The model's decoded calls: per turn, per step, the call strings of that step. */
export type ModelCallsByTurn = string[][][];

/** Upstream's verdict for one entry. */
export interface CheckResult {
  valid: boolean;
  /** Upstream's error type, e.g. `multi_turn:instance_state_mismatch`. */
  errorType?: string;
  errorMessage?: string;
  /** The turn that failed. */
  turn?: number;
  /** Ground-truth results missing from the model's (response checker). */
  missingResults?: string[];
  /** The state difference (state checker). */
  state?: StateCheck;
}

/** `is_empty_execute_response`: no calls, or one empty string. */
export function isEmptyExecuteResponse(calls: readonly unknown[]): boolean {
  return (
    calls.length === 0 || (calls.length === 1 && (calls[0] as { length: number }).length === 0)
  );
}

/** `_is_subsequence_unordered(expected, actual)`: the items of `expected` missing from `actual` as a multiset. */
export function missingUnordered(expected: readonly string[], actual: readonly string[]): string[] {
  const pool = [...actual];
  const missing: string[] = [];
  for (const item of expected) {
    const i = pool.indexOf(item);
    if (i === -1) missing.push(item);
    else pool.splice(i, 1);
  }
  return missing;
}

/**
 * Checks one entry as upstream does. `modelTurns` holds, per turn, the decoded call lists of
 * each model step (steps that decoded to nothing are dropped here, as upstream drops them).
 * A turn count different from the ground truth's means the model was force-terminated.
 */
export function checkEntry(
  entry: BfclEntry,
  modelTurns: ModelCallsByTurn,
  options: BfclSessionOptions = {},
): CheckResult {
  if (modelTurns.length !== entry.groundTruth.length) {
    return {
      valid: false,
      errorType: "multi_turn:force_terminated",
      errorMessage:
        `Model was force-terminated during inference phase. The length of the model result turns (${modelTurns.length}) ` +
        `does not match the length of the ground truth turns (${entry.groundTruth.length}).`,
    };
  }
  const session = new BfclSession(options);
  const longContext = isLongContext(entry.id);
  const model = new BfclInstances(session, entry.involvedClasses, entry.initialConfig, longContext);
  const groundTruth = new BfclInstances(
    session,
    entry.involvedClasses,
    entry.initialConfig,
    longContext,
  );
  const allModelResults: string[] = [];
  for (let turn = 0; turn < entry.groundTruth.length; turn++) {
    const steps = modelTurns[turn]!.filter((step) => !isEmptyExecuteResponse(step));
    for (const step of steps) allModelResults.push(...model.executeAll(step));
    const expectedCalls = entry.groundTruth[turn]!;
    const expectedResults = groundTruth.executeAll(expectedCalls);
    if (expectedCalls.length === 0) continue;
    if (isEmptyExecuteResponse(steps)) {
      return {
        valid: false,
        turn,
        errorType: "multi_turn:empty_turn_model_response",
        errorMessage: `Model response list is empty for turn ${turn}`,
      };
    }
    const state = stateChecker(model, groundTruth);
    if (!state.valid) {
      return {
        valid: false,
        turn,
        errorType: "multi_turn:instance_state_mismatch",
        errorMessage: `Model instance for ${state.className} does not match the state with ground truth instance.`,
        state,
      };
    }
    const missing = missingUnordered(expectedResults, allModelResults);
    if (missing.length > 0) {
      return {
        valid: false,
        turn,
        errorType: "multi_turn:execution_response_mismatch",
        errorMessage: `Model response execution results so far does not contain all the ground truth response execution results for turn ${turn}.`,
        missingResults: missing,
      };
    }
  }
  return { valid: true };
}
