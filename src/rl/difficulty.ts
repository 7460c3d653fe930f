/**
 * @module rl/difficulty
 * The RLVE-style sliding-window difficulty controller of the reference's fixed-environment
 * baseline (`spade/core/difficulty_controller.py`, `SlidingWindowController`): per environment a
 * window [low, high]; plays at `high` are counted, and after every `tauNum` of them the window
 * moves up by one when at least `tauAcc` succeeded (counters reset either way). Pure: the state
 * goes in, the new state comes out; the draw takes its uniform number from the caller.
 */
import { SpadeError } from "../errors.js";

/** One environment's window and its count at the top difficulty. */
export interface DifficultyWindow {
  low: number;
  high: number;
  successesAtHigh: number;
  attemptsAtHigh: number;
}

/** The controller's settings; the defaults are the reference's. */
export interface SlidingWindowOptions {
  /** Success rate at `high` that promotes. Default 0.9. */
  tauAcc: number;
  /** Plays at `high` before each promotion check. Default 8. */
  tauNum: number;
  /** Widest window (`high - low + 1`). Default 4. */
  dDelta: number;
  /** Highest difficulty. Default 20. */
  maxDifficulty: number;
}

/** The reference's defaults (`SlidingWindowController.__init__`). */
export const SLIDING_WINDOW_DEFAULTS: Readonly<SlidingWindowOptions> = Object.freeze({
  tauAcc: 0.9,
  tauNum: 8,
  dDelta: 4,
  maxDifficulty: 20,
});

/** A fresh window at `minDifficulty` (RLVE environments start at 0). */
export function initialWindow(minDifficulty = 0): DifficultyWindow {
  return { low: minDifficulty, high: minDifficulty, successesAtHigh: 0, attemptsAtHigh: 0 };
}

/**
 * The window after one play at `difficulty` with `reward` (a success is a reward above 0, as the
 * reference counts it). Plays below `high` change nothing.
 */
export function updateWindow(
  window: DifficultyWindow,
  difficulty: number,
  reward: number,
  options: SlidingWindowOptions = SLIDING_WINDOW_DEFAULTS,
): DifficultyWindow {
  if (!Number.isFinite(reward) || !Number.isInteger(difficulty)) {
    throw new SpadeError(
      "E_RL_INPUT",
      `updateWindow: difficulty must be an integer and reward finite (got ${difficulty}, ${reward})`,
    );
  }
  if (difficulty !== window.high) return window;
  const attempts = window.attemptsAtHigh + 1;
  const successes = window.successesAtHigh + (reward > 0 ? 1 : 0);
  if (attempts < options.tauNum)
    return { ...window, attemptsAtHigh: attempts, successesAtHigh: successes };
  const promote = successes / attempts >= options.tauAcc && window.high < options.maxDifficulty;
  const high = promote ? window.high + 1 : window.high;
  const low = promote ? Math.max(window.low, high - options.dDelta + 1) : window.low;
  return { low, high, successesAtHigh: 0, attemptsAtHigh: 0 };
}

/** The difficulty drawn uniformly from [low, high] with `uniform` in [0, 1) (Python's `randint(low, high)`). */
export function sampleDifficulty(window: DifficultyWindow, uniform: number): number {
  if (!(uniform >= 0 && uniform < 1))
    throw new SpadeError(
      "E_RL_INPUT",
      `sampleDifficulty: uniform must be in [0, 1), got ${uniform}`,
    );
  return window.low + Math.floor(uniform * (window.high - window.low + 1));
}
