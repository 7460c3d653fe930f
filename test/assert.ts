/**
 * Small assertion helpers shared by the unit tests: the error a call throws or a promise rejects
 * with, or its code, and element-wise closeness of number lists (nulls must match exactly).
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

/** What `fn` throws (to inspect its fields); fails the test when `fn` returns. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to throw; it returned");
}

/** What `promise` rejects with (to inspect its fields); fails the test when it resolves. */
export async function rejected(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the promise to reject; it resolved");
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
