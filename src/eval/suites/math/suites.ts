/**
 * @module eval/suites/math/suites
 * GSM8K (test, 1,319) and MATH-500 (500) as single-turn items: the question plus an instruction
 * to put the final answer in `\boxed{}`; graded by symbolic equivalence with the reference.
 */
import { join } from "node:path";
import type { Action } from "../../../env/index.js";
import { field, readJsonl, takeLimit } from "../../data.js";
import { referenceHint } from "../single-turn-env.js";
import type { Grade, ItemSpec, SuiteName } from "../types.js";
import { mathAnswersEqual } from "./equivalence.js";

/** The instruction appended to every math question. */
export const MATH_INSTRUCTION =
  "Solve the problem step by step. Put your final answer within \\boxed{}.";

/** Grades a math action: the extracted answer must equal `reference`. */
export function gradeMath(action: Action, reference: string): Grade {
  if (action.answer === null) return { correct: false, info: { reason: "no_answer", reference } };
  const correct = mathAnswersEqual(action.answer, reference);
  return { correct, info: { answer: action.answer, reference } };
}

function mathItem(suite: SuiteName, id: string, question: string, reference: string): ItemSpec {
  return {
    suite,
    id,
    prompt: `${question}\n\n${MATH_INSTRUCTION}`,
    reference,
    oracleText: `The final answer is \\boxed{${reference}}.`,
    hint: referenceHint("The final answer is ", reference),
    grade: async (action) => gradeMath(action, reference),
  };
}

/** The reference of a GSM8K record: the text after `#### ` in `answer`. */
export function gsm8kReference(answer: string): string {
  const at = answer.lastIndexOf("####");
  return (at === -1 ? answer : answer.slice(at + 4)).trim();
}

/** GSM8K test items from `<root>/gsm8k/test.jsonl`, ids `gsm8k/<line index>`. */
export async function loadGsm8k(root: string, limit?: number): Promise<ItemSpec[]> {
  const path = join(root, "gsm8k", "test.jsonl");
  const rows = takeLimit(await readJsonl(path), limit);
  return rows.map((row, i) =>
    mathItem(
      "gsm8k",
      `gsm8k/${i}`,
      field(row, "question", path),
      gsm8kReference(field(row, "answer", path)),
    ),
  );
}

/** MATH-500 items from `<root>/math500/test.jsonl`, ids from `unique_id` (e.g. `test/algebra/1349.json`). */
export async function loadMath500(root: string, limit?: number): Promise<ItemSpec[]> {
  const path = join(root, "math500", "test.jsonl");
  const rows = takeLimit(await readJsonl(path), limit);
  return rows.map((row) =>
    mathItem(
      "math500",
      field(row, "unique_id", path),
      field(row, "problem", path),
      field(row, "answer", path),
    ),
  );
}
