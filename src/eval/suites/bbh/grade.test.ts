import { describe, expect, it } from "vitest";
import { dataRoot } from "../../data.js";
import { timed } from "../../../../test/assert.js";
import { makeAction } from "../../../env/index.js";
import { loadSuite } from "../load.js";
import {
  bbhAnswersEqual,
  choiceLetter,
  cleanBbhAnswer,
  parseOptions,
  BBH_TASK_KINDS,
} from "./grade.js";
import { bbhTasks, loadBbhTask } from "./suite.js";

const dataDir = dataRoot({ env: process.env });
const input = "What does this SVG draw?\nOptions:\n(A) circle\n(B) heptagon\n(C) hexagon";

describe("BBH answer normalisation", () => {
  it("reads option letters in their usual forms, and unique option text", () => {
    const options = parseOptions(input);
    expect([...options]).toEqual([
      ["A", "circle"],
      ["B", "heptagon"],
      ["C", "hexagon"],
    ]);
    for (const answer of [
      "(B)",
      "B",
      "b",
      "(b)",
      "B)",
      "B. heptagon",
      "(B) heptagon",
      "Option B",
      "\\text{(B)}",
      "heptagon",
      "Heptagon.",
    ]) {
      expect([answer, choiceLetter(answer, options)]).toEqual([answer, "B"]);
    }
    expect(choiceLetter("octagon", options)).toBeNull();
    expect(choiceLetter("a heptagon", options)).toBeNull();
  });

  it.each([
    ["choice", "(B)", "(B)", true],
    ["choice", "(C)", "(B)", false],
    ["choice", "Monsters, Inc", "Monsters, Inc", true],
    ["boolean", "true", "True", true],
    ["boolean", "False", "True", false],
    ["yesno", "\\text{Yes}", "Yes", true],
    ["yesno", "no", "Yes", false],
    ["validity", "invalid", "valid", false],
    ["validity", "Valid.", "valid", true],
    ["number", "-11,520", "-11520", true],
    ["number", "twelve", "12", true],
    ["number", "13", "12", false],
    ["dyck", "]]>", "] ] >", true],
    ["dyck", "] >", "] ] >", false],
    ["words", "Apple, banana cherry", "apple banana cherry", true],
    ["words", "banana apple cherry", "apple banana cherry", false],
  ] as const)("%s: %j vs %j -> %s", (kind, answer, target, expected) => {
    expect(bbhAnswersEqual(kind, answer, target, input)).toBe(expected);
  });

  it("cleans wrappers, dollars, quotes and a full stop", () => {
    expect(cleanBbhAnswer(" \\textbf{ Yes }. ")).toBe("Yes");
    expect(cleanBbhAnswer("'valid'")).toBe("valid");
    expect(cleanBbhAnswer("$$")).toBe("");
    expect(cleanBbhAnswer("$`x$'")).toBe("x$");
  });
});

describe("BBH suite", () => {
  it("has 27 tasks, all with a known answer kind", async () => {
    const tasks = await bbhTasks(dataDir);
    expect(tasks.length).toBe(27);
    expect(tasks).toEqual(Object.keys(BBH_TASK_KINDS).sort());
  });

  it("asks dyck_languages for answer tags, since braces break \\boxed{}", async () => {
    const items = await loadBbhTask(dataDir, "dyck_languages");
    const withBrace = items.find((i) => i.reference.includes("}"))!;
    expect(withBrace.oracleText).toBe(`<answer>${withBrace.reference}</answer>`);
    expect((await withBrace.grade(makeAction(withBrace.oracleText))).correct).toBe(true);
    expect(withBrace.prompt).toContain("<answer></answer>");
  });

  it("scores a wrong option 0", async () => {
    const item = (
      await loadSuite("bbh", { dataDir, bbhTasks: ["date_understanding"], limit: 1 })
    )[0]!;
    expect(item.reference).toBe("(B)");
    expect((await item.grade(makeAction("\\boxed{(A)}"))).correct).toBe(false);
    expect((await item.grade(makeAction("\\boxed{12/25/1937}"))).correct).toBe(true);
  });
});

// A generous bound: the regexes replaced took about 35 s here (quadratic in each inner run).
it("cleanBbhAnswer reads long inner runs of dollars and quotes in linear time", () => {
  const answer = `x${"$".repeat(131_072)}${"'".repeat(131_072)}y`;
  const cleaned = timed(() => cleanBbhAnswer(answer));
  expect(cleaned.value).toBe(answer);
  expect(cleaned.ms).toBeLessThan(2000);
});
