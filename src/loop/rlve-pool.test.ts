// The RLVE controller's update from a step's plays, as the reference's orchestrator feeds it.
import { describe, expect, it } from "vitest";
import type { EpisodeRow } from "../store/index.js";
import { fixedEnvRow } from "./library.js";
import { updateDifficulty, type RlvePick } from "./rlve-pool.js";

const OPTIONS = { tauAcc: 0.9, tauNum: 2, dDelta: 2, maxDifficulty: 20 };
const META = { name: "rlve-a", skill: "RLVE", description: "A", maxTurns: 1, tools: [] };

function pick(id: string, difficulty: number): RlvePick {
  return { id, difficulty, row: fixedEnvRow(`rlve-${id}-d${difficulty}`, "", META, 0) };
}

function play(envId: string, idx: number, rewards: number[], failure: string | null = null) {
  return { envId, idx, rewards, failure } as unknown as EpisodeRow;
}

describe("updateDifficulty", () => {
  it("counts finished plays at the top in order, and plays below it or failed not at all", () => {
    const windows = {
      A: { low: 0, high: 1, successesAtHigh: 0, attemptsAtHigh: 0 },
      B: { low: 2, high: 3, successesAtHigh: 1, attemptsAtHigh: 1 },
    };
    const next = updateDifficulty(
      windows,
      [pick("A", 1), pick("B", 2), pick("C", 0)],
      [
        // A at its top: two wins promote (window width 2: [1, 2]); the third play is at the old top.
        play("rlve-A-d1", 2, [0, 1]),
        play("rlve-A-d1", 0, [1]),
        play("rlve-A-d1", 1, [0.5, 0]),
        // A failed play counts nothing, even a win.
        play("rlve-A-d1", 3, [1], "E_SANDBOX_TIMEOUT"),
        // B below its top: nothing changes.
        play("rlve-B-d2", 0, [1]),
        // C, new: a loss at 0 then a win is 1 of 2, below 0.9: the count starts over.
        play("rlve-C-d0", 0, [0]),
        play("rlve-C-d0", 1, [1]),
      ],
      OPTIONS,
    );
    expect(next).toEqual({
      A: { low: 1, high: 2, successesAtHigh: 0, attemptsAtHigh: 0 },
      B: { low: 2, high: 3, successesAtHigh: 1, attemptsAtHigh: 1 },
      C: { low: 0, high: 0, successesAtHigh: 0, attemptsAtHigh: 0 },
    });
    // The state given is not changed.
    expect(windows.A).toEqual({ low: 0, high: 1, successesAtHigh: 0, attemptsAtHigh: 0 });
  });
});
