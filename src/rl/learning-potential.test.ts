import { describe, expect, it } from "vitest";
import { LP_INITIAL, lpBaseline, lpPotential, lpSignedPotential, lpUpdate } from "./index.js";
import { codeOf } from "../../test/assert.js";

describe("learning-potential tracker (gamma weighs the new value; 0.98 / 0.85)", () => {
  it("starts empty: baseline 0, potential 0", () => {
    expect(lpBaseline(LP_INITIAL)).toBe(0);
    expect(lpPotential(LP_INITIAL)).toBe(0);
  });

  it("follows hand-computed values over three updates", () => {
    const first = lpUpdate(LP_INITIAL, 0.5);
    expect(first).toEqual({ state: { muFast: 0.5, muSlow: 0.5 }, potential: 0 });

    // muFast = 0.02 * 0.5 + 0.98 * 1 = 0.99; muSlow = 0.15 * 0.5 + 0.85 * 1 = 0.925
    const second = lpUpdate(first.state, 1);
    expect(second.state.muFast).toBeCloseTo(0.99, 12);
    expect(second.state.muSlow).toBeCloseTo(0.925, 12);
    expect(second.potential).toBeCloseTo(0.065 / 0.26, 12); // 0.25
    expect(lpSignedPotential(second.state)).toBeCloseTo(0.25, 12);
    expect(lpBaseline(second.state)).toBeCloseTo(0.925, 12);

    // muFast = 0.02 * 0.99 = 0.0198; muSlow = 0.15 * 0.925 = 0.13875
    const third = lpUpdate(second.state, 0);
    expect(third.state.muFast).toBeCloseTo(0.0198, 12);
    expect(third.state.muSlow).toBeCloseTo(0.13875, 12);
    expect(lpSignedPotential(third.state)).toBeCloseTo(-0.4575, 12);
    expect(third.potential).toBeCloseTo(0.4575, 12);
  });

  it("takes other gammas (the reference's code defaults 0.99 / 0.95)", () => {
    const options = { gammaFast: 0.99, gammaSlow: 0.95 };
    const s = lpUpdate(lpUpdate(LP_INITIAL, 0.5, options).state, 1, options);
    expect(s.state.muFast).toBeCloseTo(0.995, 12);
    expect(s.state.muSlow).toBeCloseTo(0.975, 12);
    expect(s.potential).toBeCloseTo(0.25, 12);
  });

  it("never mutates the state it is given", () => {
    const state = { muFast: 0.2, muSlow: 0.4 };
    lpUpdate(state, 1);
    expect(state).toEqual({ muFast: 0.2, muSlow: 0.4 });
  });

  it("rejects gammaFast <= gammaSlow and a non-finite reward", () => {
    expect(codeOf(() => lpUpdate(LP_INITIAL, 0.5, { gammaFast: 0.85, gammaSlow: 0.98 }))).toBe(
      "E_CONFIG",
    );
    expect(codeOf(() => lpUpdate(LP_INITIAL, 0.5, { gammaFast: 0.9, gammaSlow: 0.9 }))).toBe(
      "E_CONFIG",
    );
    expect(codeOf(() => lpUpdate(LP_INITIAL, Number.NaN))).toBe("E_RL_INPUT");
  });
});
