import { describe, expect, it } from "vitest";
import { groupAdvantages, populationStd } from "./index.js";
import { codeOf, expectCloseList } from "../../test/assert.js";

describe("groupAdvantages = (r - mean) / (std + 1e-8), population std", () => {
  it("half wins: +-0.5 / (0.5 + 1e-8)", () => {
    const a = 0.5 / (0.5 + 1e-8); // 0.99999998
    expectCloseList(groupAdvantages([1, 0, 0, 1]), [a, -a, -a, a]);
  });

  it("uses the population std (two plays 1, 0: std 0.5, not 0.707)", () => {
    expect(populationStd([1, 0])).toBe(0.5);
    const a = 0.5 / (0.5 + 1e-8);
    expectCloseList(groupAdvantages([1, 0]), [a, -a]);
  });

  it("three returns 1, 0.5, 0: std sqrt(1/6)", () => {
    const a = 0.5 / (Math.sqrt(1 / 6) + 1e-8); // 1.2247448414
    expectCloseList(groupAdvantages([1, 0.5, 0]), [a, 0, -a]);
  });

  it("all-equal groups and single-episode groups give 0", () => {
    expect(groupAdvantages([1, 1, 1])).toEqual([0, 0, 0]);
    expect(groupAdvantages([0, 0])).toEqual([0, 0]);
    expect(groupAdvantages([0.7])).toEqual([0]);
  });

  it("failed episodes are masked (null) and do not move the mean or std", () => {
    const a = 0.5 / (0.5 + 1e-8);
    expectCloseList(groupAdvantages([1, null, 0, null]), [a, null, -a, null]);
    expect(groupAdvantages([null, null])).toEqual([null, null]);
    expect(groupAdvantages([])).toEqual([]);
  });

  it("without std division: mean-centring only", () => {
    expectCloseList(
      groupAdvantages([1, 0, 0, 0], { stdNormalize: false }),
      [0.75, -0.25, -0.25, -0.25],
    );
    expectCloseList(groupAdvantages([1, null, 0.5], { stdNormalize: false }), [0.25, null, -0.25]);
  });

  it("rejects a NaN return and a non-positive epsilon", () => {
    expect(codeOf(() => groupAdvantages([1, Number.NaN]))).toBe("E_RL_INPUT");
    expect(codeOf(() => groupAdvantages([1, 0], { epsilon: 0 }))).toBe("E_CONFIG");
  });
});
