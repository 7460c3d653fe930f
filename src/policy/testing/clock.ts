/**
 * @module policy/testing/clock
 * TEST DOUBLE: retry clocks whose sleeps return at once, for tests of retrying code.
 */
import type { RetryClock } from "../retry.js";

/** A clock that records its sleeps (ms); `now` stands still, `random` cycles through `randoms`. */
export function recordingClock(
  options: { nowMs?: number; randoms?: number[] } = {},
): RetryClock & { sleeps: number[] } {
  const sleeps: number[] = [];
  const randoms = options.randoms ?? [0];
  let draws = 0;
  return {
    sleeps,
    now: () => options.nowMs ?? 0,
    random: () => randoms[draws++ % randoms.length] ?? 0,
    sleep: async (ms) => void sleeps.push(ms),
  };
}

/** A clock at time 0 without jitter whose sleeps return at once, unrecorded. */
export const INSTANT_CLOCK: RetryClock = { now: () => 0, random: () => 0, sleep: async () => {} };
