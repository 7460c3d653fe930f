/**
 * @module rl/check
 * Input guards shared by the reward math: a NaN that slips into a reward silently poisons a
 * whole training step, so every public function checks its numbers first.
 */
import { SpadeError } from "../errors.js";

/** Throws E_RL_INPUT unless `value` is a finite number. */
export function requireFinite(value: number, what: string): number {
  if (!Number.isFinite(value)) {
    throw new SpadeError("E_RL_INPUT", `${what} must be a finite number (got ${String(value)})`, {
      nextStep: "pass failed episodes as failures, never as NaN or Infinity",
    });
  }
  return value;
}

/** Throws E_RL_INPUT unless `value` is a finite number in [lo, hi]. */
export function requireInRange(value: number, lo: number, hi: number, what: string): number {
  requireFinite(value, what);
  if (value < lo || value > hi) {
    throw new SpadeError("E_RL_INPUT", `${what} must be in [${lo}, ${hi}] (got ${value})`);
  }
  return value;
}

/** Throws E_CONFIG unless `value` is a finite number greater than zero. */
export function requirePositiveOption(value: number, what: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new SpadeError("E_CONFIG", `${what} must be a number > 0 (got ${String(value)})`);
  }
  return value;
}

/** Arithmetic mean of a non-empty list. */
export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}
