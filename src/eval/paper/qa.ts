/**
 * @module eval/paper/qa
 * AIME and GPQA-Diamond as the SPADE reference reads and grades them (eval_offline/suites/aime.py,
 * gpqa_diamond.py): row formats, prompts, answer extraction and verdicts, and a single-turn
 * `Env` per row. Their data is not shipped; users put the files where `qaPaths` says.
 */
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import { makeAction, type Action, type JsonObject, type ResetResult } from "../../env/index.js";
import { readJsonl } from "../data.js";
import { type Graded, OneStepEnv } from "../episode.js";
import { mathAnswersEqual } from "../suites/math/index.js";

/** One question: the user message, an optional system message, and how to grade an answer. */
export interface QaItem {
  id: string;
  system: string | null;
  user: string;
  /** The reference answer (AIME: the number; GPQA: the letter). */
  label: string;
  /** The extracted answer of a response, or null. */
  extract(text: string): string | null;
  /** Whether an extracted answer is right. */
  correct(extracted: string | null): boolean;
  /** Grades a whole answer when that needs more than a comparison (LiveCodeBench runs tests); overrides extract/correct. */
  grade?(text: string): Promise<{ correct: boolean; info: JsonObject }>;
}

/** Where a user puts the files (below the benchmarks folder), as the reference lays AIME out. */
export function qaPaths(dataDir: string): {
  aime: (year: number) => string;
  gpqa: string;
  livecodebench: string;
} {
  return {
    aime: (year) => join(dataDir, `aime-${year}`, `aime-${year}.jsonl`),
    gpqa: join(dataDir, "gpqa-diamond", "gpqa_diamond.jsonl"),
    livecodebench: join(dataDir, "livecodebench"),
  };
}

/** The last `\boxed{...}` without nested braces (the reference's `\\boxed\{([^{}]+)\}`), stripped. */
export function aimeExtract(text: string): string | null {
  const all = [...text.matchAll(/\\boxed\{([^{}]+)\}/g)];
  const last = all[all.length - 1];
  return last ? (last[1] as string).trim() : null;
}

/** AIME verdict: math equivalence with the label, else equal integers, else equal stripped text. */
export function aimeCorrect(predicted: string | null, label: string): boolean {
  if (predicted === null) return false;
  if (mathAnswersEqual(predicted, label)) return true;
  const a = predicted.trim();
  const b = label.trim();
  if (/^[+-]?\d+$/.test(a) && /^[+-]?\d+$/.test(b)) return BigInt(a) === BigInt(b);
  return a === b;
}

function bad(path: string, line: number, what: string): SpadeError {
  return new SpadeError("E_IO", `${path} line ${line}: ${what}`, {
    nextStep: "see docs/evaluation.md for the row format",
  });
}

/** AIME rows `{"prompt": [messages], "label"}`: an optional system message then one user message. */
export async function loadAime(path: string, year: number): Promise<QaItem[]> {
  const rows = await readJsonl(path);
  return rows.map((row, i) => {
    const r = row as { prompt?: unknown; label?: unknown };
    if (!Array.isArray(r.prompt) || (typeof r.label !== "string" && typeof r.label !== "number"))
      throw bad(path, i + 1, 'expected {"prompt": [messages], "label": answer}');
    const messages = r.prompt as Array<{ role?: unknown; content?: unknown }>;
    const system = messages.length === 2 && messages[0]?.role === "system" ? messages[0] : null;
    const user = messages[messages.length - 1];
    if (
      user?.role !== "user" ||
      typeof user.content !== "string" ||
      messages.length > (system ? 2 : 1) ||
      (system !== null && typeof system.content !== "string")
    ) {
      throw bad(
        path,
        i + 1,
        "prompt must be one user message, optionally after one system message",
      );
    }
    const label = String(r.label);
    return {
      id: `aime-${year}/${i}`,
      system: system ? (system.content as string) : null,
      user: user.content,
      label,
      extract: aimeExtract,
      correct: (p) => aimeCorrect(p, label),
    };
  });
}

/** The reference's GPQA prompt (boxed_qa_env.py): the question, lettered options, the answer format. */
export function gpqaPrompt(question: string, options: readonly string[]): string {
  const opts = options.map((o, i) => `${"ABCD"[i]}. ${o}`).join("\n");
  return `${question}\n\n${opts}\n\nPlease reason step by step, and put your final answer within \\boxed{}. Specifically, you should provide your final answer in the format \\boxed{LETTER} where LETTER is one of ABCD.`;
}

/** The reference's letter extraction: the last `\boxed{A-D}`, else the first "answer is X" / "Answer: X" (any case). */
export function gpqaExtract(text: string): string | null {
  const boxed = [...text.matchAll(/\\boxed\{([A-D])\}/g)];
  const lastBoxed = boxed[boxed.length - 1];
  if (lastBoxed) return (lastBoxed[1] as string).toUpperCase();
  const m = /(?:answer is|Answer:)\s*([A-D])\b/i.exec(text);
  return m ? (m[1] as string).toUpperCase() : null;
}

/** GPQA-Diamond rows `{"question_id", "question", "options": [4], "answer": "A".."D"}` (the reference's shuffled form). */
export async function loadGpqa(path: string): Promise<QaItem[]> {
  const rows = await readJsonl(path);
  return rows.map((row, i) => {
    const r = row as {
      question_id?: unknown;
      question?: unknown;
      options?: unknown;
      answer?: unknown;
    };
    const options = r.options;
    if (
      typeof r.question !== "string" ||
      !Array.isArray(options) ||
      options.length !== 4 ||
      !options.every((o) => typeof o === "string") ||
      typeof r.answer !== "string" ||
      !/^[A-D]$/.test(r.answer)
    ) {
      throw bad(
        path,
        i + 1,
        'expected {"question_id", "question", "options": [4 strings], "answer": "A".."D"}',
      );
    }
    const label = r.answer;
    return {
      id: `gpqa/${typeof r.question_id === "string" ? r.question_id : i}`,
      system: null,
      user: gpqaPrompt(r.question, options as string[]),
      label,
      extract: gpqaExtract,
      correct: (p) => p === label,
    };
  });
}

/** A single-turn environment over one question: reward 1 for a right answer, else 0. */
export class QaEnv extends OneStepEnv {
  constructor(private readonly item: QaItem) {
    const description = `held-out question ${item.id}`;
    super(item.id, { name: "eval-qa", skill: "Mathematical Reasoning", description });
  }

  /** The question (the seed does not matter). */
  protected async start(_seed: number): Promise<ResetResult> {
    return { observation: this.item.user, info: { id: this.item.id } };
  }

  /** Grades the one answer. */
  protected async grade(action: Action): Promise<Graded> {
    if (this.item.grade) {
      const { correct, info } = await this.item.grade(action.text);
      return { correct, info: { id: this.item.id, correct, ...info } };
    }
    const predicted = this.item.extract(action.text);
    const correct = this.item.correct(predicted);
    return { correct, info: { id: this.item.id, predicted, label: this.item.label, correct } };
  }

  async hint(): Promise<string> {
    return `The answer is ${this.item.label}`;
  }

  /** The label written as the reference's extraction reads it. */
  async solve(): Promise<Action> {
    return makeAction(`\\boxed{${this.item.label}}`);
  }
}
