import { describe, expect, it } from "vitest";
import { codeOf } from "../../test/assert.js";
import { advantageDivisors, aggregateAdvantages, type AggregationTargets } from "./index.js";

/** Tinker's summed loss of `sequences` when every ratio is 1: -sum of the advantages of trained targets. */
const tinkerLoss = (advantages: number[][], sequences: readonly AggregationTargets[]) =>
  -advantages.reduce(
    (sum, a, i) => sum + a.reduce((s, x, t) => s + (sequences[i]?.mask[t] ? x : 0), 0),
    0,
  );

/** Sample s's share of the loss: the sum of its trained targets' advantages. */
const perSample = (advantages: number[][]) => advantages.map((a) => a.reduce((s, x) => s + x, 0));

describe("aggregateAdvantages: a'_t = a_t / (G max(n_s, 1)) under sample-mean, a_t under token-sum", () => {
  // Two samples of 3 and 7 trained tokens (a prompt target first, mask 0), advantage 1, G = 2.
  const three: AggregationTargets = { advantages: [0, 1, 1, 1], mask: [0, 1, 1, 1] };
  const seven: AggregationTargets = {
    advantages: [0, 0, 1, 1, 1, 1, 1, 1, 1],
    mask: [0, 0, 1, 1, 1, 1, 1, 1, 1],
  };

  it("sample-mean: 1/6 and 1/14 per token, each sample 1/2 in all; token-sum: 1 per token, 3 and 7", () => {
    const mean = aggregateAdvantages([three, seven], "sample-mean", 2);
    expect(mean).toEqual([
      [0, 1 / 6, 1 / 6, 1 / 6],
      [0, 0, ...Array.from({ length: 7 }, () => 1 / 14)],
    ]);
    expect(perSample(mean).map((x) => x.toFixed(15))).toEqual([
      "0.500000000000000",
      "0.500000000000000",
    ]);
    const sum = aggregateAdvantages([three, seven], "token-sum", 2);
    expect(sum).toEqual([three.advantages, seven.advantages]);
    expect(perSample(sum)).toEqual([3, 7]);
  });

  it("equals Slime's loss, sum over samples of the mean over their tokens divided by G, with masked samples in G", () => {
    // Advantages 2 and -0.5 per token; a third sample of the batch is masked (no datum) but counts in G = 3.
    const a: AggregationTargets = { advantages: [0, 2, 2, 2], mask: [0, 1, 1, 1] };
    const b: AggregationTargets = { advantages: [0, 0, -0.5, -0.5], mask: [0, 0, 1, 1] };
    const weighted = aggregateAdvantages([a, b], "sample-mean", 3);
    expect(weighted).toEqual([
      [0, 2 / 9, 2 / 9, 2 / 9],
      [0, 0, -0.5 / 6, -0.5 / 6],
    ]);
    // Slime: -(mean 2 + mean -0.5 + 0 for the masked one) / 3 = -0.5.
    expect(tinkerLoss(weighted, [a, b])).toBeCloseTo(-(2 + -0.5 + 0) / 3, 15);
    // Token sum: -(3 x 2 + 2 x -0.5) = -5.
    expect(tinkerLoss(aggregateAdvantages([a, b], "token-sum", 3), [a, b])).toBe(-5);
  });

  it("per-token advantages (the KL fold's) keep their shape; a sample without trained targets divides by G", () => {
    const folded: AggregationTargets = { advantages: [0, 1.5, 0.5], mask: [0, 1, 1] };
    const empty: AggregationTargets = { advantages: [0, 0], mask: [0, 0] };
    expect(aggregateAdvantages([folded, empty], "sample-mean", 4)).toEqual([
      [0, 1.5 / 8, 0.5 / 8],
      [0, 0],
    ]);
    expect(advantageDivisors([2, 0], "sample-mean", 4)).toEqual([8, 4]);
    expect(advantageDivisors([3, 7], "token-sum", 2)).toEqual([1, 1]);
  });

  it("refuses a batch smaller than its datums, an unknown aggregation and bad input with coded errors", () => {
    expect(
      codeOf(() => aggregateAdvantages([{ advantages: [1], mask: [1] }], "sample-mean", 0)),
    ).toBe("E_RL_INPUT");
    expect(codeOf(() => advantageDivisors([1], "sample-mean", 1.5))).toBe("E_RL_INPUT");
    expect(codeOf(() => advantageDivisors([1], "token-mean" as never, 1))).toBe("E_CONFIG");
    expect(
      codeOf(() => aggregateAdvantages([{ advantages: [1, 1], mask: [1] }], "sample-mean", 1)),
    ).toBe("E_RL_INPUT");
    expect(
      codeOf(() => aggregateAdvantages([{ advantages: [Number.NaN], mask: [1] }], "token-sum", 1)),
    ).toBe("E_RL_INPUT");
  });
});
