/**
 * @module eval/bfcl/single/relevance
 * BFCL's relevance verdict: whether the model called a function at all, for the `irrelevance`
 * (no call expected) and `relevance` (some call expected) categories.
 */
import type { AstVerdict } from "./ast-checker.js";
import { isDict, type PyValue } from "../../python/index.js";

/** Upstream's `is_empty_output`: no call, or one empty call, counts as no function call. */
export function isEmptyOutput(output: PyValue[]): boolean {
  return output.length === 0 || (output.length === 1 && isDict(output[0]) && output[0].size === 0);
}

/** The relevance verdict: `irrelevance` categories pass without a call, `relevance` ones with one. */
export function relevanceCheck(output: PyValue[] | null, testCategory: string): AstVerdict {
  const containsCall = output !== null && !isEmptyOutput(output);
  const success = testCategory.includes("irrelevance") ? !containsCall : containsCall;
  return success
    ? { valid: true }
    : {
        valid: false,
        errorType: testCategory.includes("irrelevance")
          ? "irrelevance_error:decoder_success"
          : "relevance_error:decoder_failed",
      };
}
