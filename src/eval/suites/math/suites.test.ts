import { describe, expect, it } from "vitest";
import { dataRoot } from "../../data.js";
import { makeAction } from "../../../env/index.js";
import { loadSuite } from "../load.js";
import { gsm8kReference, MATH_INSTRUCTION } from "./suites.js";
import { perturbationCheck } from "./self-check.js";

const dataDir = dataRoot({ env: process.env });

/** Per perturbation kind: [kind, items it applies to, of those scored 0, accepted count]. */
function kindCounts(report: Awaited<ReturnType<typeof perturbationCheck>>) {
  return report.byKind.map((k) => [k.kind, k.applicable, k.scoredZero, k.accepted.length]);
}

describe("GSM8K", () => {
  it("loads 1,319 test items with the boxed-answer instruction", async () => {
    const items = await loadSuite("gsm8k", { dataDir });
    expect(items.length).toBe(1319);
    const first = items[0]!;
    expect(first.id).toBe("gsm8k/0");
    expect(first.reference).toBe("18");
    expect(first.prompt.startsWith("Janet’s ducks lay 16 eggs per day.")).toBe(true);
    expect(first.prompt.endsWith(MATH_INSTRUCTION)).toBe(true);
  });

  it("takes the reference after ####", () => {
    expect(gsm8kReference("She makes 9 * 2 = $18.\n#### 1,450,000")).toBe("1,450,000");
  });

  it("grades model-style answers", async () => {
    const item = (await loadSuite("gsm8k", { dataDir, limit: 1 }))[0]!;
    expect((await item.grade(makeAction("So she makes \\boxed{\\$18} a day."))).correct).toBe(true);
    expect((await item.grade(makeAction("\\boxed{18.00}"))).correct).toBe(true);
    expect((await item.grade(makeAction("\\boxed{19}"))).correct).toBe(false);
    expect(await item.grade(makeAction("The answer is 18."))).toEqual({
      correct: false,
      info: { reason: "no_answer", reference: "18" },
    });
  });
});

describe("perturbation check", () => {
  // Per kind: [kind, items it applies to, of those scored 0, accepted]. MATH-500's increment: all
  // but the 11 answers without digits; negate: all but 8 word answers, 7 answers equal to 0 and 2
  // whose first number is 0; drop: the 52 with several items or terms; letter: the 10 digit-free
  // answers with a letter outside a command (\pi has none).
  it.each([
    ["gsm8k", [1319, 1319, 0, 0]],
    ["math500", [489, 483, 52, 10]],
  ] as const)("%s: perturbed references all score 0, on a fixed set of items", async (suite, n) => {
    const report = await perturbationCheck(await loadSuite(suite, { dataDir }));
    expect(kindCounts(report)).toEqual([
      ["increment", n[0], n[0], 0],
      ["negate", n[1], n[1], 0],
      ["drop", n[2], n[2], 0],
      ["letter", n[3], n[3], 0],
    ]);
    expect(report.unperturbable).toEqual([]);
  });
});
