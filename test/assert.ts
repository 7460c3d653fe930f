/**
 * Small assertion helpers shared by the unit tests: the error code a call fails with, and
 * element-wise closeness of number lists (nulls must match exactly).
 */
import { expect } from "vitest";
import { isSpadeError } from "../src/errors.js";

/** The SpadeError code `fn` throws; undefined when it returns, "not a SpadeError" for other throws. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isSpadeError(err) ? err.code : "not a SpadeError";
  }
  return undefined;
}

/** The SpadeError code `promise` rejects with; "resolved" when it resolves, `uncoded: ...` for other rejections. */
export async function codeOfAsync(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "resolved";
  } catch (err) {
    return isSpadeError(err) ? err.code : `uncoded: ${String(err)}`;
  }
}

/** Asserts `actual` equals `expected` element-wise to 10 decimals; nulls must be null. */
export function expectCloseList(
  actual: Array<number | null>,
  expected: Array<number | null>,
): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((value, i) => {
    const want = expected[i];
    if (want === null || want === undefined) expect(value).toBeNull();
    else expect(value).toBeCloseTo(want, 10);
  });
}
