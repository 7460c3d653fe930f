import { describe, expect, it } from "vitest";
import {
  designerAdvantages,
  designerRawReward,
  frontierPenalty,
  isMaskedDesignerReward,
  microLearningProgress,
  plateau,
  regretTerm,
} from "./index.js";
import { codeOf } from "../../test/assert.js";

describe("plateau (0 at 0.15 and 0.85, 1 on [0.4, 0.6])", () => {
  const table: Array<[number, number]> = [
    [0, 0],
    [0.1, 0],
    [0.149, 0],
    [0.15, 0],
    [0.151, 0.004],
    [0.2, 0.2],
    [0.25, 0.4],
    [0.3, 0.6],
    [0.399, 0.996],
    [0.4, 1],
    [0.5, 1],
    [0.6, 1],
    [0.601, 0.996],
    [0.7, 0.6],
    [0.75, 0.4],
    [0.8, 0.2],
    [0.849, 0.004],
    [0.85, 0],
    [0.851, 0],
    [0.9, 0],
    [1, 0],
  ];
  it.each(table)("plateau(%d) = %d", (winRate, expected) => {
    expect(plateau(winRate)).toBeCloseTo(expected, 12);
  });

  it("takes its edges and ramp from options", () => {
    expect(plateau(0.2, { lo: 0.3, hi: 0.5, ramp: 0.2 })).toBeCloseTo(0.5, 12);
    expect(plateau(0.6, { lo: 0.3, hi: 0.5, ramp: 0.2 })).toBeCloseTo(0.5, 12);
    expect(plateau(0.5, { lo: 0.5, hi: 0.5, ramp: 0.1 })).toBe(1);
  });

  it("rejects a bad shape or a non-finite win rate", () => {
    expect(codeOf(() => plateau(0.5, { ramp: 0 }))).toBe("E_CONFIG");
    expect(codeOf(() => plateau(0.5, { lo: 0.7, hi: 0.6 }))).toBe("E_CONFIG");
    expect(codeOf(() => plateau(Number.NaN))).toBe("E_RL_INPUT");
  });
});

describe("regretTerm = clip(regret / floor, 0, 1)", () => {
  const table: Array<[number, number]> = [
    [-0.5, 0],
    [-0.1, 0],
    [0, 0],
    [0.03, 0.2],
    [0.075, 0.5],
    [0.1, 2 / 3],
    [0.15, 1],
    [0.2, 1],
    [1, 1],
  ];
  it.each(table)("regretTerm(%d) = %d with the 0.15 floor", (r, expected) => {
    expect(regretTerm(r)).toBeCloseTo(expected, 12);
  });

  it("uses the floor it is given", () => {
    expect(regretTerm(0.15, 0.3)).toBe(0.5);
    expect(regretTerm(0.3, 0.3)).toBe(1);
    expect(codeOf(() => regretTerm(0.1, 0))).toBe("E_CONFIG");
    expect(codeOf(() => regretTerm(Number.POSITIVE_INFINITY))).toBe("E_RL_INPUT");
  });
});

describe("designerRawReward", () => {
  const blend: Array<[number, number, number]> = [
    // regret, winRate, 0.4 * clip(regret / 0.15, 0, 1) + 0.6 * plateau(winRate)
    [0.075, 0.5, 0.8],
    [0.3, 0.25, 0.64],
    [0.06, 0.7, 0.52],
    [0.15, 0.85, 0.4],
    [0.15, 0.15, 0.4],
    [0.15, 0.5, 1],
    [-0.2, 0.9, 0],
    [0, 0.4, 0.6],
    [0, 0, 0],
  ];
  it.each(blend)("blend(regret %d, winRate %d) = %d", (r, w, expected) => {
    expect(designerRawReward("blend", { regret: r, winRate: w })).toBeCloseTo(expected, 12);
  });

  it("regret is the clipped regret term alone; solveRate is the plateau alone", () => {
    expect(designerRawReward("regret", { regret: 0.1, winRate: 0.95 })).toBeCloseTo(2 / 3, 12);
    expect(
      designerRawReward("regret", { regret: 0.45, winRate: 0.5 }, { regretFloor: 0.5 }),
    ).toBeCloseTo(0.9, 12);
    expect(designerRawReward("solveRate", { regret: 0.9, winRate: 0.3 })).toBeCloseTo(0.6, 12);
    expect(designerRawReward("solveRate", { regret: 0, winRate: 0.55 })).toBe(1);
  });

  it("blend weights are options: (0, 1) is solveRate, (1, 0) is regret", () => {
    const stats = { regret: 0.05, winRate: 0.3 };
    expect(designerRawReward("blend", stats, { regretWeight: 0, plateauWeight: 1 })).toBeCloseTo(
      0.6,
      12,
    );
    expect(designerRawReward("blend", stats, { regretWeight: 1, plateauWeight: 0 })).toBeCloseTo(
      1 / 3,
      12,
    );
  });

  it("learningPotential is |winRate - baseline| and needs the baseline", () => {
    expect(
      designerRawReward("learningPotential", { regret: 0, winRate: 0.75, lpBaseline: 0.5 }),
    ).toBe(0.25);
    expect(
      designerRawReward("learningPotential", { regret: 0, winRate: 0.25, lpBaseline: 0.5 }),
    ).toBe(0.25);
    expect(designerRawReward("learningPotential", { regret: 0, winRate: 0.5, lpBaseline: 0 })).toBe(
      0.5,
    );
    expect(
      designerRawReward("learningPotential", { regret: 0, winRate: -0.5, lpBaseline: 0.25 }),
    ).toBe(0.75);
    expect(codeOf(() => designerRawReward("learningPotential", { regret: 0, winRate: 0.5 }))).toBe(
      "E_RL_INPUT",
    );
    expect(
      codeOf(() =>
        designerRawReward("learningPotential", { regret: 0, winRate: -1.5, lpBaseline: 0 }),
      ),
    ).toBe("E_RL_INPUT");
  });

  it("rejects a win rate outside [0, 1], a NaN regret and an unknown variant", () => {
    expect(codeOf(() => designerRawReward("blend", { regret: 0, winRate: 1.01 }))).toBe(
      "E_RL_INPUT",
    );
    expect(codeOf(() => designerRawReward("blend", { regret: 0, winRate: -0.01 }))).toBe(
      "E_RL_INPUT",
    );
    expect(codeOf(() => designerRawReward("blend", { regret: Number.NaN, winRate: 0.5 }))).toBe(
      "E_RL_INPUT",
    );
    expect(codeOf(() => designerRawReward("bogus" as "blend", { regret: 0, winRate: 0.5 }))).toBe(
      "E_CONFIG",
    );
  });
});

describe("microLp (delayed_env_rewards.py:recompute_delayed_env_rewards_micro_lp)", () => {
  // Steps split at floor(n / 2); the odd middle step is late; max(0, mean(late) - mean(early)).
  const table: Array<[string, number[][], number]> = [
    ["no step", [], 0],
    ["one step: nothing to compare", [[0, 1, 1]], 0],
    [
      "2 steps: 0.25 -> 0.75",
      [
        [0, 0, 0, 1],
        [1, 1, 0, 1],
      ],
      0.5,
    ],
    [
      "4 steps of R = 4: early (0, 0.5) = 0.25, late (0.5, 1) = 0.75",
      [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ],
      0.5,
    ],
    [
      "3 steps: early [0, 0], late [1, 0, 1, 1] -> 0.75",
      [
        [0, 0],
        [1, 0],
        [1, 1],
      ],
      0.75,
    ],
    [
      "got worse: floored at 0",
      [
        [1, 1],
        [0, 0],
      ],
      0,
    ],
    ["uneven counts: early 2/3, late 1", [[1, 1, 0], [1]], 1 / 3],
    [
      "negative returns: early -1, late 0",
      [
        [-1, -1],
        [0, 0],
      ],
      1,
    ],
  ];
  it.each(table)("%s", (_name, returnsByStep, expected) => {
    expect(microLearningProgress(returnsByStep)).toBeCloseTo(expected, 12);
    expect(designerRawReward("microLp", { regret: 0.3, winRate: 0.5, returnsByStep })).toBeCloseTo(
      expected,
      12,
    );
  });

  it("needs the returns by step", () => {
    expect(codeOf(() => designerRawReward("microLp", { regret: 0, winRate: 0.5 }))).toBe(
      "E_RL_INPUT",
    );
    expect(codeOf(() => microLearningProgress([[0], [Number.NaN]]))).toBe("E_RL_INPUT");
  });
});

describe("frontier: 0.4 clip(regret / 0.15) - 0.6 (winRate - 0.5)^2 / 0.08 (the reference's frontier anchor)", () => {
  const table: Array<[number, number, number]> = [
    // [regret, winRate, raw]
    [0.15, 0.5, 0.4], // penalty 0
    [0, 0.5, 0],
    [0.075, 0.6, 0.2 - (0.6 * 0.01) / 0.08], // 0.2 - 0.075 = 0.125
    [0.15, 0.7, 0.4 - (0.6 * 0.04) / 0.08], // 0.4 - 0.3 = 0.1
    [0.15, 0.9, 0.4 - (0.6 * 0.16) / 0.08], // 0.4 - 1.2 = -0.8: masked
    [0, 1, (-0.6 * 0.25) / 0.08], // -1.875
    [-0.3, 0.3, (-0.6 * 0.04) / 0.08], // regret floored at 0: -0.3
  ];
  it.each(table)("regret %d, win rate %d -> %d", (regret, winRate, expected) => {
    expect(designerRawReward("frontier", { regret, winRate })).toBeCloseTo(expected, 12);
  });

  it("takes the penalty's weight and scale from options", () => {
    expect(frontierPenalty(0.8)).toBeCloseTo(0.09, 12);
    expect(
      designerRawReward(
        "frontier",
        { regret: 0.15, winRate: 0.8 },
        { frontierWeight: 1, frontierScale: 0.09 },
      ),
    ).toBeCloseTo(0.4 - 1, 12);
    expect(
      codeOf(() =>
        designerRawReward("frontier", { regret: 0, winRate: 0.5 }, { frontierScale: 0 }),
      ),
    ).toBe("E_CONFIG");
  });

  it("masks designs below 0: not trained, not counted as invalid, and left out of their skill's mean", () => {
    const raws = [0.4, 0.1, -0.8];
    expect(raws.map(isMaskedDesignerReward)).toEqual([false, false, true]);
    // Skill mean over the two trained designs = 0.25; scale 32: (0.4 - 0.25) x 32 = 4.8, (0.1 - 0.25) x 32 = -4.8.
    const advantages = designerAdvantages(
      raws.map((r) => ({ skill: "Optimization", rawReward: r, masked: isMaskedDesignerReward(r) })),
      { scale: 32, invalidDesign: "lowest" },
    );
    expect(advantages[0]).toBeCloseTo(4.8, 12);
    expect(advantages[1]).toBeCloseTo(-4.8, 12);
    expect(advantages[2]).toBeNull();
  });
});
