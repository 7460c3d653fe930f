import { describe, expect, it } from "vitest";
import { perturb, topLevelTerms } from "./perturb.js";

describe("perturb", () => {
  it("increment adds one to the first digit run, keeping its width", () => {
    expect(perturb("\\frac{1}{2}", "increment")).toBe("\\frac{2}{2}");
    expect(perturb(".0000672", "increment")).toBe(".0000673");
    expect(perturb("52_8", "increment")).toBe("53_8");
    expect(perturb("\\pi", "increment")).toBeNull();
  });

  it("negate flips the sign of the first number, or negates an answer without digits", () => {
    expect(perturb("18", "negate")).toBe("-18");
    expect(perturb("-\\frac{3}{8}", "negate")).toBe("-\\frac{-3}{8}"); // the value flips: 3/8
    expect(perturb("(8,-2)", "negate")).toBe("(-8,-2)");
    expect(perturb("\\pi", "negate")).toBe("-\\pi");
    expect(perturb("0", "negate")).toBeNull();
    expect(perturb("\\text{even}", "negate")).toBeNull();
  });

  it("drop removes the last row, union part, list item, ± term or sum term", () => {
    expect(perturb("\\begin{pmatrix} -7 \\\\ 16 \\\\ 5 \\end{pmatrix}", "drop")).toBe(
      "\\begin{pmatrix} -7 \\\\ 16 \\end{pmatrix}",
    );
    expect(perturb("(0,9) \\cup (9,36)", "drop")).toBe("(0,9)");
    expect(perturb("(6,31,-1)", "drop")).toBe("(6,31)");
    expect(perturb("3, 5, 7", "drop")).toBe("3, 5");
    expect(perturb("1 \\pm \\sqrt{19}", "drop")).toBe("1");
    expect(perturb("-13x+3", "drop")).toBe("-13x");
    expect(perturb("18+2\\pi", "drop")).toBe("18");
    expect(perturb("\\frac{11+9a}{20}", "drop")).toBeNull();
  });

  it("letter moves the first letter outside a command when there are no digits", () => {
    expect(perturb("\\text{even}", "letter")).toBe("\\text{fven}");
    expect(perturb("\\cot x", "letter")).toBe("\\cot y");
    expect(perturb("\\text{(C)}", "letter")).toBe("\\text{(D)}");
    expect(perturb("2k", "letter")).toBeNull();
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
