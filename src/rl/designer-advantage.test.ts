import { describe, expect, it } from "vitest";
import { centreBySkill, designerAdvantages, designerRawReward, designerScale } from "./index.js";
import { codeOf, expectCloseList } from "../../test/assert.js";

describe("centreBySkill (mean subtraction, no std division)", () => {
  it("centres each skill on its own mean, interleaved skills in input order", () => {
    const out = centreBySkill([
      { skill: "A", reward: 0.8 },
      { skill: "B", reward: 0.3 },
      { skill: "A", reward: 0.4 },
      { skill: "C", reward: 0.5 },
      { skill: "B", reward: 0.1 },
      { skill: "A", reward: 0.6 },
    ]);
    expectCloseList(out, [0.2, 0.1, -0.2, 0, -0.1, 0]);
  });

  it("gives 0 to a skill with one sample and to an all-equal skill", () => {
    expect(centreBySkill([{ skill: "A", reward: 0.9 }])).toEqual([0]);
    expect(
      centreBySkill([
        { skill: "A", reward: 0.4 },
        { skill: "A", reward: 0.4 },
      ]),
    ).toEqual([0, 0]);
    expect(centreBySkill([])).toEqual([]);
  });
});

describe("designerScale = min(50, nAgent / nDesigner * R)", () => {
  const table: Array<[number, number, number, number | undefined, number]> = [
    [192, 24, 4, undefined, 32], // games 30B
    [192, 24, 8, undefined, 50], // tool use 30B: 64 capped at 50
    [192, 24, 8, 100, 64],
    [150, 24, 8, undefined, 50], // exactly at the cap
    [149, 24, 8, undefined, 149 / 3],
    [96, 24, 4, undefined, 16],
    [10, 3, 1, undefined, 10 / 3],
    [0, 24, 4, undefined, 1],
    [192, 0, 4, undefined, 1],
  ];
  it.each(table)(
    "designerScale(%d, %d, %d, max %s) = %d",
    (nAgent, nDesigner, r, max, expected) => {
      expect(designerScale(nAgent, nDesigner, r, max)).toBeCloseTo(expected, 12);
    },
  );

  it("rejects negative or fractional counts and a bad interval or cap", () => {
    expect(codeOf(() => designerScale(-1, 24, 4))).toBe("E_RL_INPUT");
    expect(codeOf(() => designerScale(192, 2.5, 4))).toBe("E_RL_INPUT");
    expect(codeOf(() => designerScale(192, 24, 0))).toBe("E_CONFIG");
    expect(codeOf(() => designerScale(192, 24, 4, 0))).toBe("E_CONFIG");
  });
});

describe("designerAdvantages", () => {
  const samples = [
    { skill: "A", rawReward: 0.8 },
    { skill: "A", rawReward: 0.4 },
    { skill: "A", rawReward: null }, // invalid design
    { skill: "B", rawReward: 0.3 },
    { skill: "B", rawReward: null }, // invalid design
  ];

  it("lowest (default): an invalid design is trained with reward 0, centred with its skill", () => {
    // A: [0.8, 0.4, 0] mean 0.4 -> [0.4, 0, -0.4] x 32; B: [0.3, 0] mean 0.15 -> [0.15, -0.15] x 32
    expectCloseList(designerAdvantages(samples, { scale: 32 }), [12.8, 0, -12.8, 4.8, -4.8]);
  });

  it("drop: invalid designs are not trained and do not move their skill's mean", () => {
    // A: [0.8, 0.4] mean 0.6 -> [0.2, -0.2] x 32; B: [0.3] alone -> 0
    expectCloseList(designerAdvantages(samples, { scale: 32, invalidDesign: "drop" }), [
      6.4,
      -6.4,
      null,
      0,
      null,
    ]);
  });

  it("lowest with a custom invalid reward", () => {
    // A: [0.8, 0.4, -0.5] mean 0.7 / 3; B: [0.3, -0.5] mean -0.1 -> [0.4, -0.4] x 32
    const meanA = 0.7 / 3;
    expectCloseList(designerAdvantages(samples, { scale: 32, invalidReward: -0.5 }), [
      (0.8 - meanA) * 32,
      (0.4 - meanA) * 32,
      (-0.5 - meanA) * 32,
      12.8,
      -12.8,
    ]);
  });

  it("worked case: blend rewards of one skill, centred and scaled by the games scale", () => {
    const raw = [
      designerRawReward("blend", { regret: 0.15, winRate: 0.5 }), // 1
      designerRawReward("blend", { regret: 0, winRate: 0.9 }), // 0: solved by everyone
      designerRawReward("blend", { regret: 0.075, winRate: 0.25 }), // 0.2 + 0.24 = 0.44
    ];
    const scale = designerScale(192, 24, 4);
    const out = designerAdvantages(
      raw.map((rawReward) => ({ skill: "Logical Deduction", rawReward })),
      { scale },
    );
    // mean 0.48 -> [0.52, -0.48, -0.04] x 32
    expectCloseList(out, [16.64, -15.36, -1.28]);
  });

  it("rejects an unknown policy and a non-finite scale or reward", () => {
    expect(
      codeOf(() => designerAdvantages(samples, { scale: 32, invalidDesign: "keep" as "drop" })),
    ).toBe("E_CONFIG");
    expect(codeOf(() => designerAdvantages(samples, { scale: Number.NaN }))).toBe("E_RL_INPUT");
    expect(
      codeOf(() => designerAdvantages([{ skill: "A", rawReward: Number.NaN }], { scale: 1 })),
    ).toBe("E_RL_INPUT");
  });
});
