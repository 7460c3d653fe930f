// The sliding-window difficulty controller against hand-computed windows (the reference's rules).
import { describe, expect, it } from "vitest";
import {
  initialWindow,
  sampleDifficulty,
  SLIDING_WINDOW_DEFAULTS,
  updateWindow,
  type DifficultyWindow,
} from "./difficulty.js";

/** Plays `rewards` in order, each at the window's current `high`. */
function playAtHigh(window: DifficultyWindow, rewards: number[]): DifficultyWindow {
  return rewards.reduce((w, r) => updateWindow(w, w.high, r), window);
}

describe("sliding-window difficulty controller", () => {
  it("promotes after 8 plays at high with at least 90% successes, and resets the count", () => {
    const seven = playAtHigh(initialWindow(), [1, 1, 1, 1, 1, 1, 1]);
    expect(seven).toEqual({ low: 0, high: 0, successesAtHigh: 7, attemptsAtHigh: 7 });
    expect(updateWindow(seven, 0, 1)).toEqual({
      low: 0,
      high: 1,
      successesAtHigh: 0,
      attemptsAtHigh: 0,
    });
    // 7 of 8 is 0.875 < 0.9: no promotion, but the count starts over (as RLVE does).
    expect(updateWindow(seven, 0, 0)).toEqual({
      low: 0,
      high: 0,
      successesAtHigh: 0,
      attemptsAtHigh: 0,
    });
  });

  it("raises difficulty after successes and keeps the window at most 4 wide", () => {
    let w = initialWindow();
    const highs: number[] = [];
    for (let round = 0; round < 6; round++) {
      w = playAtHigh(w, Array(8).fill(1));
      highs.push(w.high);
    }
    expect(highs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(w).toEqual({ low: 3, high: 6, successesAtHigh: 0, attemptsAtHigh: 0 });
  });

  it("ignores plays below high, counts a reward above 0 as a success, and stops at the maximum", () => {
    const w: DifficultyWindow = { low: 2, high: 5, successesAtHigh: 3, attemptsAtHigh: 4 };
    expect(updateWindow(w, 3, 1)).toBe(w);
    expect(updateWindow(w, 5, 0.01).successesAtHigh).toBe(4);
    expect(updateWindow(w, 5, -1).successesAtHigh).toBe(3);
    const top = { ...SLIDING_WINDOW_DEFAULTS, maxDifficulty: 5 };
    expect(
      Array(8)
        .fill(1)
        .reduce((x: DifficultyWindow) => updateWindow(x, 5, 1, top), {
          low: 2,
          high: 5,
          successesAtHigh: 0,
          attemptsAtHigh: 0,
        }),
    ).toEqual({ low: 2, high: 5, successesAtHigh: 0, attemptsAtHigh: 0 });
  });

  it("draws uniformly from [low, high] and refuses bad input with E_RL_INPUT", () => {
    const w: DifficultyWindow = { low: 3, high: 6, successesAtHigh: 0, attemptsAtHigh: 0 };
    expect([0, 0.2499, 0.25, 0.5, 0.75, 0.9999].map((u) => sampleDifficulty(w, u))).toEqual([
      3, 3, 4, 5, 6, 6,
    ]);
    expect(() => sampleDifficulty(w, 1)).toThrow(expect.objectContaining({ code: "E_RL_INPUT" }));
    expect(() => updateWindow(w, 6, Number.NaN)).toThrow(
      expect.objectContaining({ code: "E_RL_INPUT" }),
    );
  });
});
