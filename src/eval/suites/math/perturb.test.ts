import { describe, expect, it } from "vitest";
import perturbCases from "./perturb.cases.json";
import { type PerturbationKind, perturb, topLevelTerms } from "./perturb.js";

/** [answer, what perturb makes of it (null: the kind does not apply)] for each kind. */
const cases = perturbCases as Record<PerturbationKind, Array<[string, string | null]>>;

/** Checks every row of `kind`'s table; a failure names the answer. */
function expectPerturbed(kind: PerturbationKind): void {
  for (const [answer, perturbed] of cases[kind])
    expect(perturb(answer, kind), answer).toBe(perturbed);
}

describe("perturb", () => {
  it("increment adds one to the first digit run, keeping its width", () => {
    expectPerturbed("increment");
  });

  // -\frac{3}{8} becomes -\frac{-3}{8}: the value flips to 3/8.
  it("negate flips the sign of the first number, or negates an answer without digits", () => {
    expectPerturbed("negate");
  });

  it("drop removes the last row, union part, list item, ± term or sum term", () => {
    expectPerturbed("drop");
  });

  it("letter moves the first letter outside a command when there are no digits", () => {
    expectPerturbed("letter");
  });
});

describe("topLevelTerms", () => {
  it("splits at binary signs only", () => {
    expect(topLevelTerms("x^5 - x^4 + 1")).toEqual(["x^5 ", "- x^4 ", "+ 1"]);
    expect(topLevelTerms("-13x+3")).toEqual(["-13x", "+3"]);
    expect(topLevelTerms("2^{-1} + e^{-x}")).toEqual(["2^{-1} ", "+ e^{-x}"]);
    expect(topLevelTerms("3 \\cdot -2")).toEqual(["3 \\cdot -2"]);
  });
});
