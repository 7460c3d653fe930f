import { describe, expect, it } from "vitest";
import { timed } from "../../../../test/assert.js";
import { cleanAnswer, textKey } from "./normalize.js";

describe("cleanAnswer", () => {
  it.each([
    ["  42 ", "42"],
    ["$\\frac{1}{2}$", "\\frac{1}{2}"],
    ["\\boxed{7}", "7"],
    ["\\left( 3, \\frac{\\pi}{2} \\right)", "( 3, \\frac{\\pi}{2} )"],
    ["\\dfrac{33}{100}", "\\frac{33}{100}"],
    ["\\tfrac12", "\\frac12"],
    ["30^\\circ", "30"],
    ["30^{\\circ}", "30"],
    ["45°", "45"],
    ["\\frac{270}7\\text{ degrees}", "\\frac{270}7"],
    ["10\\%", "10"],
    ["\\$18.90", "18.90"],
    ["\\$32,\\!348", "32348"],
    ["10,\\!080", "10080"],
    ["11,\\! 111,\\! 111,\\! 100", "11111111100"],
    ["1{,}000", "1000"],
    ["1,450,000", "1450000"],
    ["1,-2", "1,-2"],
    ["3, 5, 7", "3, 5, 7"],
    ["864 \\mbox{ inches}^2", "864"],
    ["15\\mbox{ cm}^2", "15"],
    ["5.4 \\text{ cents}", "5.4"],
    ["18 dollars", "18"],
    ["5 cm^2", "5"],
    ["18.", "18"],
    ["\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"],
  ])("cleans %j to %j", (raw, latex) => {
    expect(cleanAnswer(raw)).toEqual({ latex, isText: false });
  });

  it("marks a whole \\text{...} answer as words", () => {
    expect(cleanAnswer("\\text{(C)}")).toEqual({ latex: "(C)", isText: true });
    expect(cleanAnswer("\\textbf{Even}.")).toEqual({ latex: "Even", isText: true });
    expect(cleanAnswer("2k")).toEqual({ latex: "2k", isText: false });
  });
});

describe("textKey", () => {
  it("ignores wrappers, case, spaces and the parentheses of a choice", () => {
    expect(textKey("\\text{(C)}")).toBe("c");
    expect(textKey("C")).toBe("c");
    expect(textKey("Navin")).toBe("navin");
    expect(textKey("\\textbf{East }")).toBe("east");
  });
});

describe("cleanAnswer on adversarial answers", () => {
  it.each([
    ["$$\\text{even}$$", { latex: "even", isText: true }],
    ["$\\text{even}", { latex: "\\text{even}", isText: false }],
    ["$$", { latex: "", isText: false }],
  ])("%j (surrounding dollars)", (raw, expected) => {
    expect(cleanAnswer(raw)).toEqual(expected);
  });

  // A generous bound: the regex replaced took about 20 s here (cubic in the dollars).
  it("reads 4K dollars before text in linear time", () => {
    const cleaned = timed(() => cleanAnswer(`${"$".repeat(4096)}x`));
    expect(cleaned.value).toEqual({ latex: "x", isText: false });
    expect(cleaned.ms).toBeLessThan(2000);
  });
});
