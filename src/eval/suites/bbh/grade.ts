/**
 * @module eval/suites/bbh/grade
 * BIG-Bench Hard answer normalisation, per task kind: option letters, True/False, Yes/No,
 * valid/invalid, numbers, Dyck closing sequences and sorted word lists.
 * BBH files carry a canary: evaluation only, NEVER training data.
 */

/** How a task's answers are written. */
export type BbhKind = "choice" | "boolean" | "yesno" | "validity" | "number" | "dyck" | "words";

/** The kind of each of the 27 tasks. */
export const BBH_TASK_KINDS: Readonly<Record<string, BbhKind>> = Object.freeze({
  boolean_expressions: "boolean",
  causal_judgement: "yesno",
  date_understanding: "choice",
  disambiguation_qa: "choice",
  dyck_languages: "dyck",
  formal_fallacies: "validity",
  geometric_shapes: "choice",
  hyperbaton: "choice",
  logical_deduction_five_objects: "choice",
  logical_deduction_seven_objects: "choice",
  logical_deduction_three_objects: "choice",
  movie_recommendation: "choice",
  multistep_arithmetic_two: "number",
  navigate: "yesno",
  object_counting: "number",
  penguins_in_a_table: "choice",
  reasoning_about_colored_objects: "choice",
  ruin_names: "choice",
  salient_translation_error_detection: "choice",
  snarks: "choice",
  sports_understanding: "yesno",
  temporal_sequences: "choice",
  tracking_shuffled_objects_five_objects: "choice",
  tracking_shuffled_objects_seven_objects: "choice",
  tracking_shuffled_objects_three_objects: "choice",
  web_of_lies: "yesno",
  word_sorting: "words",
});

/** How the answer is asked for, per kind (appended to the task input). */
export const BBH_INSTRUCTIONS: Readonly<Record<BbhKind, string>> = Object.freeze({
  choice:
    "Think step by step, then put the letter of the correct option within \\boxed{}, e.g. \\boxed{(A)}.",
  boolean: "Think step by step, then put True or False within \\boxed{}.",
  yesno: "Think step by step, then put Yes or No within \\boxed{}.",
  validity: "Think step by step, then put valid or invalid within \\boxed{}.",
  number: "Think step by step, then put the final number within \\boxed{}.",
  // Braces in the sequence would break \boxed{...}, so this task asks for answer tags.
  dyck: "Think step by step, then write only the closing brackets that complete the sequence, separated by spaces, inside <answer></answer> tags (not \\boxed{}, because the sequence may contain braces).",
  words:
    "Think step by step, then put the sorted words, separated by single spaces, within \\boxed{}.",
});

const NUMBER_WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
];

/** Strips LaTeX text wrappers, math dollars, quotes and a trailing full stop; collapses spaces. */
export function cleanBbhAnswer(answer: string): string {
  let s = answer.trim().replace(/\.$/, "").trim();
  for (let guard = 0; guard < 5; guard++) {
    const m = /^\\(?:text|textbf|textit|textrm|mathrm|mbox)\s*\{([\s\S]*)\}$/.exec(s);
    if (!m) break;
    s = (m[1] ?? "").trim();
  }
  // `(?<!...)` starts the trailing run's match at its first character only: without it the
  // regex retries from every character of a long inner run (quadratic). Same result.
  s = s.replace(/^\$+|(?<!\$)\$+$/g, "").trim();
  s = s.replace(/^["'`]+|(?<!["'`])["'`]+$/g, "").trim();
  s = s.replace(/\.$/, "").trim();
  return s.replace(/\s+/g, " ");
}

/** The options `(A) text` listed in a task input, by letter. */
export function parseOptions(input: string): Map<string, string> {
  const options = new Map<string, string>();
  for (const line of input.split("\n")) {
    const m = /^\(([A-Z])\)\s*(.*)$/.exec(line.trim());
    if (m) options.set(m[1] ?? "", (m[2] ?? "").trim());
  }
  return options;
}

/**
 * The option letter an answer names: `(B)`, `B`, `b)`, `B. text`, `(B) text`, `Option B`, or the
 * text of exactly one option (`heptagon`). Null when none is named.
 */
export function choiceLetter(answer: string, options: ReadonlyMap<string, string>): string | null {
  const s = cleanBbhAnswer(answer).replace(/^(?:option|answer)\s*:?\s*/i, "");
  const paren = /^\(([A-Za-z])\)/.exec(s);
  if (paren) return (paren[1] ?? "").toUpperCase();
  const bare = /^([A-Za-z])(?:[.):]\s*.*)?$/.exec(s);
  if (bare) return (bare[1] ?? "").toUpperCase();
  const key = s.toLowerCase();
  const matches = [...options].filter(([, text]) => text.toLowerCase().replace(/\.$/, "") === key);
  return matches.length === 1 ? (matches[0]?.[0] ?? null) : null;
}

function numberValue(s: string): number | null {
  const t = s.toLowerCase().replace(/,/g, "").replace(/\s+/g, "");
  if (/^[-+]?\d+(?:\.\d+)?$/.test(t)) return Number(t);
  const word = NUMBER_WORDS.indexOf(t);
  return word === -1 ? null : word;
}

function words(s: string): string {
  return s
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((w) => w !== "")
    .join(" ");
}

/** True when `answer` (extracted from the model's output) matches `target` for a task of `kind`. */
export function bbhAnswersEqual(
  kind: BbhKind,
  answer: string,
  target: string,
  input: string,
): boolean {
  const a = cleanBbhAnswer(answer);
  const t = cleanBbhAnswer(target);
  const targetLetter = /^\(([A-Z])\)$/.exec(t)?.[1];
  switch (kind) {
    case "choice":
      // A few targets are not option letters (data defects such as "Monsters, Inc"): compare text.
      if (targetLetter === undefined) return a.toLowerCase() === t.toLowerCase();
      return choiceLetter(a, parseOptions(input)) === targetLetter;
    case "boolean":
    case "yesno":
    case "validity":
      return a.toLowerCase() === t.toLowerCase();
    case "number": {
      const x = numberValue(a);
      return x !== null && x === numberValue(t);
    }
    case "dyck":
      return a.replace(/\s+/g, "") === t.replace(/\s+/g, "");
    case "words":
      return words(a) === words(t);
  }
}
