// The graders' positive self-check on the suites that need no sandbox: every reference, written
// as a model would answer, scores 1 (HumanEval and MBPP: code/suites.test.ts, in the sandbox).
import { describe, expect, it } from "vitest";
import { dataRoot } from "../data.js";
import { goldCheck } from "./gold.js";

const dataDir = dataRoot({ env: process.env });

describe("goldCheck", () => {
  it.each([
    ["gsm8k", 1319],
    ["math500", 500],
    ["bbh", 6511],
  ] as const)("gold: every %s reference scores 1 (%i of them)", async (suite, n) => {
    const { items, correct, failures } = await goldCheck(suite, { dataDir });
    expect({ items, correct, failures }).toEqual({ items: n, correct: n, failures: [] });
  });
});
