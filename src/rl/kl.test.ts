import { describe, expect, it } from "vitest";
import { codeOf } from "../../test/assert.js";
import { foldKlPenalty } from "./index.js";

describe("foldKlPenalty: A'_t = A_t + coef (m - d_t), d_t = log q_t - log p_base_t over masked targets", () => {
  // Sequence 1: masked targets 1 and 2 with d = (-0.5 - -1.0) = 0.5 and (-0.2 - -0.2) = 0.
  // Sequence 2: masked target 1 with d = (-1.0 - -0.5) = -0.5. Batch mean m = (0.5 + 0 - 0.5) / 3 = 0.
  const sequences = [
    {
      advantages: [0, 2, 2],
      samplerLogprobs: [0, -0.5, -0.2],
      baseLogprobs: [-9, -1.0, -0.2],
      mask: [0, 1, 1],
    },
    { advantages: [0, -1], samplerLogprobs: [0, -1.0], baseLogprobs: [-3, -0.5], mask: [0, 1] },
  ];

  it("with coef 0.1: 2 - 0.05, 2 - 0, -1 + 0.05; unmasked targets keep their advantage", () => {
    const fold = foldKlPenalty(sequences, 0.1);
    expect(fold.meanLogRatio).toBeCloseTo(0, 12);
    expect(fold.advantages[0]?.[0]).toBe(0);
    expect(fold.advantages[0]?.[1]).toBeCloseTo(1.95, 12);
    expect(fold.advantages[0]?.[2]).toBeCloseTo(2, 12);
    expect(fold.advantages[1]?.[0]).toBe(0);
    expect(fold.advantages[1]?.[1]).toBeCloseTo(-0.95, 12);
  });

  it("centres on the batch mean: a uniform drift costs nothing; coef 0 changes nothing", () => {
    // Every masked d = 0.3: m = 0.3, so every advantage stays.
    const drift = [
      {
        advantages: [1, 1],
        samplerLogprobs: [-0.2, -0.7],
        baseLogprobs: [-0.5, -1.0],
        mask: [1, 1],
      },
    ];
    const fold = foldKlPenalty(drift, 0.005);
    expect(fold.meanLogRatio).toBeCloseTo(0.3, 12);
    expect(fold.advantages[0]?.[0]).toBeCloseTo(1, 12);
    expect(fold.advantages[0]?.[1]).toBeCloseTo(1, 12);
    expect(foldKlPenalty(sequences, 0).advantages).toEqual([
      [0, 2, 2],
      [0, -1],
    ]);
    // 0.005 (tool use): d = (1, 0), m = 0.5 -> A + 0.005 x (-0.5, 0.5).
    const two = foldKlPenalty(
      [{ advantages: [3, 3], samplerLogprobs: [-1, -2], baseLogprobs: [-2, -2], mask: [1, 1] }],
      0.005,
    );
    expect(two.advantages[0]?.[0]).toBeCloseTo(2.9975, 12);
    expect(two.advantages[0]?.[1]).toBeCloseTo(3.0025, 12);
  });

  it("has no mean without masked targets, and rejects bad input with coded errors", () => {
    expect(
      foldKlPenalty([{ advantages: [0], samplerLogprobs: [0], baseLogprobs: [0], mask: [0] }], 0.1),
    ).toEqual({ advantages: [[0]], meanLogRatio: null });
    expect(codeOf(() => foldKlPenalty(sequences, -0.1))).toBe("E_CONFIG");
    expect(
      codeOf(() =>
        foldKlPenalty(
          [{ advantages: [0, 1], samplerLogprobs: [0], baseLogprobs: [0, 0], mask: [0, 1] }],
          0.1,
        ),
      ),
    ).toBe("E_RL_INPUT");
    expect(
      codeOf(() =>
        foldKlPenalty(
          [{ advantages: [1], samplerLogprobs: [Number.NaN], baseLogprobs: [0], mask: [1] }],
          0.1,
        ),
      ),
    ).toBe("E_RL_INPUT");
  });
});
