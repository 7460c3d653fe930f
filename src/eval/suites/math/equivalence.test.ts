import { describe, expect, it } from "vitest";
import cases from "./equivalence.cases.json";
import { mathAnswersEqual } from "./equivalence.js";
import { expressionsEqual, expressionsProportional, unsafeToEvaluate } from "./symbolic.js";

describe("mathAnswersEqual: equivalent forms are accepted", () => {
  it.each(cases.equal)("%j equals %j", (given, reference) => {
    expect(mathAnswersEqual(given, reference)).toBe(true);
  });
});

describe("mathAnswersEqual: wrong answers are rejected", () => {
  it.each(cases.differ)("%j differs from %j", (given, reference) => {
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
