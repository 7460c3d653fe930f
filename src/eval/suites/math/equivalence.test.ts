import { describe, expect, it } from "vitest";
import { mathAnswersEqual } from "./equivalence.js";
import { expressionsEqual, expressionsProportional, unsafeToEvaluate } from "./symbolic.js";

describe("mathAnswersEqual: equivalent forms are accepted", () => {
  it.each([
    ["0.5", "\\frac{1}{2}"],
    ["\\dfrac{1}{2}", "\\frac12"],
    ["\\sqrt{8}", "2\\sqrt{2}"],
    ["\\frac{1}{2}\\sqrt{3}", "\\frac{\\sqrt{3}}{2}"],
    ["\\frac{\\pi}{2}", "\\pi/2"],
    ["x^2+2x+1", "(x+1)^2"],
    ["-q+p", "p - q"],
    ["\\frac{9a+11}{20}", "\\frac{11+9a}{20}"],
    ["6-5i", "6 - 5i"],
    ["1.8", "1\\frac{4}{5}"],
    ["137.5", "137 \\frac{1}{2}"],
    ["18", "\\$18"],
    ["\\$18.00", "18"],
    ["18 dollars", "18"],
    ["1450000", "1,450,000"],
    ["5600", "5,600"],
    ["10080", "10,\\!080"],
    ["30", "30^\\circ"],
    ["10", "10\\%"],
    ["5", "x=5"],
    ["x = 5", "5"],
    ["2y = 4x + 6", "y = 2x + 3"],
    ["-5x + 7y - 11z - 4 = 0", "5x - 7y + 11z + 4 = 0"],
    ["(3, \\frac{\\pi}{2})", "\\left( 3, \\frac{\\pi}{2} \\right)"],
    ["1, -2", "-2,1"],
    ["(1,-2)", "1,-2"],
    ["1+\\sqrt{19}, 1-\\sqrt{19}", "1 \\pm \\sqrt{19}"],
    ["-2, 1-\\sqrt5, 1+\\sqrt5", "\\{1\\pm\\sqrt{5},-2\\}"],
    ["[-2, 7]", "x \\in [-2,7]"],
    ["(9,36) \\cup (0,9)", "(0,9) \\cup (9,36)"],
    [
      "\\begin{bmatrix} -1 & 0 \\\\ 0 & -1 \\end{bmatrix}",
      "\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}",
    ],
    [
      "\\begin{pmatrix} 0.2 \\\\ -3.6 \\end{pmatrix}",
      "\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}",
    ],
    ["52_{8}", "52_8"],
    ["52", "52_8"],
    ["(C)", "\\text{(C)}"],
    ["C", "\\text{(C)}"],
    ["even", "\\text{even}"],
    ["11111111100", "11,\\! 111,\\! 111,\\! 100"],
    ["\\infty", "\\infty"],
  ])("%j equals %j", (given, reference) => {
    expect(mathAnswersEqual(given, reference)).toBe(true);
  });
});

describe("mathAnswersEqual: wrong answers are rejected", () => {
  it.each([
    ["0.3333", "\\frac{1}{3}"],
    ["3.14", "\\pi"],
    ["\\frac{\\pi}{6}", "30^\\circ"],
    ["0.1", "10\\%"],
    ["42", "52_8"],
    ["52_9", "52_8"],
    ["(-2,1)", "1,-2"],
    ["(-2,7)", "[-2,7]"],
    ["[-2,7)", "[-2,7]"],
    ["y = 2x + 4", "y = 2x + 3"],
    ["x = 5", "y = 5"],
    ["2n", "2k"],
    ["1+\\sqrt{19}", "1 \\pm \\sqrt{19}"],
    ["11111111101", "11,\\! 111,\\! 111,\\! 100"],
    ["0.0000673", ".0000672"],
    ["D", "\\text{(C)}"],
    ["odd", "\\text{even}"],
    ["(0,9)", "(0,9) \\cup (9,36)"],
    ["\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\begin{pmatrix} 1 & 2 \\end{pmatrix}"],
    ["-\\infty", "\\infty"],
    ["\\frac{1}{", "\\frac{1}{2}"],
  ])("%j differs from %j", (given, reference) => {
    expect(mathAnswersEqual(given, reference)).toBe(false);
  });
});

describe("expressionsEqual and expressionsProportional", () => {
  it("compares plain numerals exactly, not in floating point", () => {
    expect(expressionsEqual("12345678901234567890", "12345678901234567891")).toBe(false);
    expect(expressionsEqual("007.50", "7.5")).toBe(true);
    expect(expressionsEqual("-0", "0")).toBe(true);
  });

  it("requires the same variables", () => {
    expect(expressionsEqual("x+1", "y+1")).toBe(false);
    expect(expressionsEqual("\\cot x", "\\frac{\\cos x}{\\sin x}")).toBe(true);
  });

  it("finds constant multiples and rejects zero and non-constant ratios", () => {
    expect(expressionsProportional("2x-4", "x-2")).toBe(true);
    expect(expressionsProportional("x-2", "x-3")).toBe(false);
    expect(expressionsProportional("0", "0")).toBe(false);
  });
});

describe("hostile answers cannot hang the grader", () => {
  it.each([
    "9^{9^{9^9}}",
    "10^{10^{10}}",
    "100000!",
    "\\binom{1000000}{500000}",
    "\\sum_{n=1}^{10^9} n",
    "\\prod_{k=1}^{100000} k",
    "1+".repeat(2000) + "1",
    "\\frac{",
    "1\\pm ".repeat(40) + "1",
    "1,".repeat(3000) + "1",
  ])("grades %j quickly as not equal to 1", (answer) => {
    const started = Date.now();
    expect(mathAnswersEqual(answer, "1")).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("flags searches and huge growth arguments, not ordinary powers", () => {
    expect(unsafeToEvaluate(["Power", 9, ["Power", 9, 387420489]])).toBe(true);
    expect(unsafeToEvaluate(["Factorial", 100000])).toBe(true);
    expect(unsafeToEvaluate(["Sum", "n", ["Limits", "n", 1, 10]])).toBe(true);
    expect(unsafeToEvaluate(["Power", 2, 1000])).toBe(false);
    expect(unsafeToEvaluate(["Multiply", 123456789, ["Power", "x", 2]])).toBe(false);
  });
});
