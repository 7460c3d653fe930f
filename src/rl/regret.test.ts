import { describe, expect, it } from "vitest";
import { meanUnhintedReturn, regret, winRate, type PlayOutcome } from "./index.js";
import { codeOf } from "../../test/assert.js";

const FAIL = Number.NaN; // a failed play's return is ignored, so even NaN is harmless

function play(seed: number, hinted: boolean, ret: number, failed = false): PlayOutcome {
  return {
    seed,
    hinted,
    return: ret,
    failure: failed ? "step: E_SANDBOX_TIMEOUT: timed out" : null,
  };
}

/** Seeds 1..n: their unhinted returns, then each round of hinted returns ("failed": a failure). */
function seeds(unhinted: (number | "failed")[], ...hintedRounds: (number | "failed")[][]) {
  const side = (hinted: boolean, returns: (number | "failed")[]) =>
    returns.map((r, i) =>
      r === "failed" ? play(i + 1, hinted, FAIL, true) : play(i + 1, hinted, r),
    );
  return [side(false, unhinted), ...hintedRounds.map((round) => side(true, round))].flat();
}

describe("regret (paired seeds by default)", () => {
  // seed 3's unhinted play failed: paired drops seed 3, independent keeps its hinted play
  const seed3Failed = seeds([1, 0, "failed"], [1, 1, 0]);

  it("one hinted and one unhinted play per seed", () => {
    expect(regret(seeds([1, 0, 0, 0], [1, 1, 0, 1]))).toEqual({
      regret: 0.5,
      hintedMean: 0.75,
      unhintedMean: 0.25,
      samples: 4,
    });
  });

  it("averages several hinted plays of a seed before averaging seeds", () => {
    // seed 1: hinted [1, 0] -> 0.5; seed 2: hinted [1, 1] -> 1; unhinted 0 and 0
    expect(regret(seeds([0, 0], [1, 1], [0, 1]))).toEqual({
      regret: 0.75,
      hintedMean: 0.75,
      unhintedMean: 0,
      samples: 2,
    });
  });

  it("a failed play removes its whole seed (pairwise exclusion)", () => {
    expect(regret(seed3Failed)).toEqual({
      regret: 0.5,
      hintedMean: 1,
      unhintedMean: 0.5,
      samples: 2,
    });
    expect(regret(seeds([0, 0], [1, "failed"]))).toEqual({
      regret: 1,
      hintedMean: 1,
      unhintedMean: 0,
      samples: 1,
    });
  });

  it("independent: each side over its own finished plays, seeds ignored", () => {
    const r = regret(seed3Failed, { pairing: "independent" });
    expect(r.hintedMean).toBeCloseTo(2 / 3, 12);
    expect(r.unhintedMean).toBe(0.5);
    expect(r.regret).toBeCloseTo(1 / 6, 12);
    expect(r.samples).toBe(2);
  });

  it("is negative when the hint hurts, and 0 when one side has nothing finished", () => {
    expect(
      regret([play(1, false, 1), play(2, false, 1), play(1, true, 0), play(2, true, 0)]).regret,
    ).toBe(-1);
    expect(regret([play(1, false, FAIL, true), play(1, true, 1)])).toEqual({
      regret: 0,
      hintedMean: null,
      unhintedMean: null,
      samples: 0,
    });
    expect(regret([play(1, false, 1)], { pairing: "independent" })).toEqual({
      regret: 0,
      hintedMean: null,
      unhintedMean: 1,
      samples: 0,
    });
    expect(regret([])).toEqual({ regret: 0, hintedMean: null, unhintedMean: null, samples: 0 });
  });

  it("rejects a finished play with a return outside [-1, 1] and an unknown pairing", () => {
    expect(codeOf(() => regret([play(1, false, 2), play(1, true, 1)]))).toBe("E_RL_INPUT");
    expect(codeOf(() => regret([play(1, false, Number.NaN), play(1, true, 1)]))).toBe("E_RL_INPUT");
    expect(codeOf(() => regret([], { pairing: "matched" as "paired" }))).toBe("E_CONFIG");
  });
});

describe("winRate and meanUnhintedReturn (unhinted, finished plays only)", () => {
  const plays = seeds([1, 0.99, 0.5, 0, "failed"], [1, 1]);
  it("success means return >= 0.99", () => {
    expect(winRate(plays)).toBe(0.5);
    expect(winRate([play(1, false, 0.98)])).toBe(0);
    expect(winRate([play(1, true, 1)])).toBe(0);
    expect(winRate([])).toBe(0);
  });
  it("mean return over finished unhinted plays", () => {
    expect(meanUnhintedReturn(plays)).toBeCloseTo(0.6225, 12);
    expect(meanUnhintedReturn([play(1, false, -1), play(2, false, 1)])).toBe(0);
    expect(meanUnhintedReturn([])).toBe(0);
  });
});
