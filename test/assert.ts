/**
 * Small assertion helpers shared by the unit tests: the error a call throws or a promise rejects
 * with, its code, or its code and message, element-wise closeness of number lists (nulls must
 * match exactly), and a call's wall time.
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

/** A failure's code and message, asserted together in one `toEqual`. */
export interface CodeAndMessage {
  code: string;
  message: string;
}

function codeAndMessage(err: unknown): CodeAndMessage {
  return isSpadeError(err)
    ? { code: err.code, message: err.message }
    : { code: "not a SpadeError", message: String(err) };
}

/**
 * The code and message of the SpadeError `fn` throws; code "returned" (message "") when it
 * returns, "not a SpadeError" (message: the thrown value as a string) for other throws.
 */
export function codeAndMessageOf(fn: () => unknown): CodeAndMessage {
  try {
    fn();
  } catch (err) {
    return codeAndMessage(err);
  }
  return { code: "returned", message: "" };
}

/**
 * The code and message of the SpadeError `promise` rejects with; code "resolved" (message "")
 * when it resolves, "not a SpadeError" (message: the rejection as a string) for other rejections.
 */
export async function codeAndMessageOfAsync(promise: Promise<unknown>): Promise<CodeAndMessage> {
  try {
    await promise;
  } catch (err) {
    return codeAndMessage(err);
  }
  return { code: "resolved", message: "" };
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

/**
 * What `fn` returns and how long it took. For the linear-time tests of parsers of model output:
 * they bound a large adversarial input generously (2 s where the quadratic code took 20 s or
 * more), never tightly, so a loaded machine does not make them flaky.
 */
export function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}
