import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../../test/cleanup.js";
import { makeAction } from "../../env/index.js";
import { isSpadeError } from "../../errors.js";
import {
  aimeCorrect,
  aimeExtract,
  gpqaExtract,
  gpqaPrompt,
  loadAime,
  loadGpqa,
  QaEnv,
  qaPaths,
} from "./qa.js";

const dir = fileTempDir("qa-");
const file = (name: string, rows: unknown[]) => {
  const path = join(dir, name);
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
};

describe("AIME (the reference's row format and grading)", () => {
  it("extracts the last \\boxed{} without nested braces and compares by math equivalence", () => {
    expect(aimeExtract("first \\boxed{12} then \\boxed{ 070 }")).toBe("070");
    // As the reference's regex: a nested brace means no match at all.
    expect(aimeExtract("\\boxed{\\frac{1}{2}}")).toBeNull();
    expect(aimeExtract("no box")).toBeNull();
    expect(aimeCorrect("070", "70")).toBe(true);
    expect(aimeCorrect("71", "70")).toBe(false);
    expect(aimeCorrect(null, "70")).toBe(false);
  });

  it("loads rows with a user message (and an optional system message) and grades them through QaEnv", async () => {
    const path = file("aime.jsonl", [
      { prompt: [{ role: "user", content: "What is 6*7?" }], label: "42" },
      {
        prompt: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "What is 2^10?" },
        ],
        label: 1024,
      },
    ]);
    const items = await loadAime(path, 2025);
    expect(items.map((i) => [i.id, i.system, i.user, i.label])).toEqual([
      ["aime-2025/0", null, "What is 6*7?", "42"],
      ["aime-2025/1", "Be brief.", "What is 2^10?", "1024"],
    ]);
    const env = new QaEnv(items[0]!);
    expect((await env.reset(0)).observation).toBe("What is 6*7?");
    const step = await env.step(makeAction("so \\boxed{42}."));
    expect([step.reward, step.info.predicted]).toEqual([1, "42"]);
    await env.reset(1);
    expect((await env.step(makeAction("\\boxed{41}"))).reward).toBe(0);
  });

  it("refuses malformed rows with E_IO naming the line", async () => {
    const path = file("bad-aime.jsonl", [
      { prompt: [{ role: "user", content: "x" }], label: "1" },
      { prompt: [{ role: "assistant", content: "x" }], label: "1" },
    ]);
    const err = await loadAime(path, 2026).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_IO") && err.message).toMatch(
      /bad-aime.jsonl line 2: prompt must be one user message/,
    );
    const missing = await loadAime(qaPaths(dir).aime(2026), 2026).catch((e: unknown) => e);
    expect(isSpadeError(missing, "E_IO") && missing.message).toContain(
      join(dir, "aime-2026", "aime-2026.jsonl"),
    );
  });
});

describe("GPQA-Diamond (the reference's fixture format, prompt and letter extraction)", () => {
  it("builds the reference's prompt and extracts the letter as it does", () => {
    expect(gpqaPrompt("Q?", ["a", "b", "c", "d"])).toBe(
      "Q?\n\nA. a\nB. b\nC. c\nD. d\n\nPlease reason step by step, and put your final answer within \\boxed{}. Specifically, you should provide your final answer in the format \\boxed{LETTER} where LETTER is one of ABCD.",
    );
    expect(gpqaExtract("\\boxed{A} ... \\boxed{C}")).toBe("C");
    expect(gpqaExtract("The answer is b. Answer: D")).toBe("B");
    expect(gpqaExtract("\\boxed{E}")).toBeNull();
  });

  it("loads the reference's test fixture rows and grades by the letter", async () => {
    // The three rows of eval_offline/suites/tests/fixtures/gpqa_diamond_3.jsonl.
    const path = file("gpqa.jsonl", [
      {
        question_id: "d1",
        question: "What charge does an electron carry?",
        options: ["+1", "-1", "0", "+2"],
        answer: "B",
      },
      {
        question_id: "d2",
        question: "Which planet is closest to the Sun?",
        options: ["Venus", "Mars", "Mercury", "Earth"],
        answer: "C",
      },
      {
        question_id: "d3",
        question: "Boiling point of water at 1 atm (Celsius)?",
        options: ["50", "75", "100", "125"],
        answer: "C",
      },
    ]);
    const items = await loadGpqa(path);
    expect(items.map((i) => [i.id, i.label])).toEqual([
      ["gpqa/d1", "B"],
      ["gpqa/d2", "C"],
      ["gpqa/d3", "C"],
    ]);
    expect(items[0]!.correct(items[0]!.extract("\\boxed{B}"))).toBe(true);
    expect(items[0]!.correct(items[0]!.extract("\\boxed{C}"))).toBe(false);
    const bad = file("gpqa-bad.jsonl", [
      { question_id: "x", question: "q", options: ["a", "b", "c"], answer: "A" },
    ]);
    expect(isSpadeError(await loadGpqa(bad).catch((e: unknown) => e), "E_IO")).toBe(true);
  });
});

describe("LiveCodeBench items (graded by running tests)", () => {
  it("QaEnv uses the item's grade, passes the whole answer, and keeps the verdict in info", async () => {
    const { lcbItems } = await import("./lcb.js");
    const { parseLcbRow } = await import("../suites/code/index.js");
    const { SUM_ROW } = await import("../suites/code/testing/lcb-fixtures.js");
    const sources: string[] = [];
    // TEST DOUBLE: a runner that records the program and answers as the harness does for a pass.
    const runner = {
      run: async (source: string) => {
        sources.push(source);
        return {
          outcome: "passed" as const,
          detail: "",
          exitCode: 0,
          stdout: '__SPADE_LCB_VERDICT__ {"results": [true, true, true], "meta": {}}\n',
          stderr: "",
          durationMs: 3,
        };
      },
    };
    const [item] = lcbItems([parseLcbRow(SUM_ROW(), "row")], runner);
    expect(item!.id).toBe("livecodebench/fx-sum");
    expect(item!.user).toBe(
      "Read two integers A and B from one line and print A+B.\n\nWrite the complete solution in a single ```python ... ``` block.",
    );
    const env = new QaEnv(item!);
    await env.reset(0);
    const step = await env.step(makeAction("```python\nprint(3)\n```"));
    expect(step).toMatchObject({
      reward: 1,
      terminated: true,
      info: {
        id: "livecodebench/fx-sum",
        correct: true,
        passed: true,
        results: [true, true, true],
        difficulty: "easy",
      },
    });
    expect(sources).toHaveLength(1);
    expect(sources[0]).toContain(
      Buffer.from(
        JSON.stringify({
          code: "print(3)",
          inputs: ["1 2\n", "10 -4\n", "1000000000 1000000000\n"],
          outputs: ["3\n", "6\n", "2000000000\n"],
          fn_name: null,
          timeout: 6,
        }),
      ).toString("base64"),
    );
  });
});
