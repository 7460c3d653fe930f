/**
 * @module env/returns
 * Episode return and success, as the contract defines them.
 */

/** Return at or above which an episode counts as a success. */
export const SUCCESS_THRESHOLD = 0.99;

/** Clamps a number to [-1, 1]. */
export function clampUnit(x: number): number {
  return Math.max(-1, Math.min(1, x));
}

/** Episode return: the sum of step rewards, clamped to [-1, 1]. */
export function episodeReturn(rewardsByStep: readonly number[]): number {
  let sum = 0;
  for (const r of rewardsByStep) sum += r;
  return clampUnit(sum);
}

/** True when an episode's return counts as a success (at least 0.99). */
export function isSuccess(ret: number): boolean {
  return ret >= SUCCESS_THRESHOLD;
}
