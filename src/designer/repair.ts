/**
 * @module designer/repair
 * Rendering why a design was refused (no program, a near-duplicate, a failed validation) as the
 * user message of a repair turn, with advice per validator code.
 */
import type { CheckCode, CheckReport } from "../env/index.js";
import type { DuplicateMatch } from "./dedupe.js";
import type { ExtractOutcome } from "./extract.js";

/** Why a design was refused. */
export type DesignProblem =
  | { kind: "extraction"; outcome: Extract<ExtractOutcome, { ok: false }> }
  | { kind: "off-task"; reason: string }
  | { kind: "duplicate"; match: DuplicateMatch }
  | { kind: "invalid"; report: CheckReport };

/** What to do about each failed validator check. */
export const CHECK_ADVICE: Readonly<Record<CheckCode, string>> = Object.freeze({
  E_COMPILE:
    "Make the program parse and define `class Environment` at the top level, with no import, export or require, and a constructor that cannot throw.",
  E_META:
    "Fix `static meta`: a lowercase-kebab name, the exact skill, a non-empty description, an integer maxTurns and a tools array of function schemas.",
  E_RESET:
    "reset(seed) must return { observation: a non-empty string, info: a plain object } and must not throw for any seed.",
  E_HINT:
    "hint() must return a non-empty string of at most 2,000 characters right after any reset, without throwing.",
  E_STEP:
    "step() must return { observation, reward in [-1, 1], terminated, truncated, info } for any action, including empty text, junk and unexpected tool calls, and answer each tool call by its id in toolResults.",
  E_ORACLE:
    "solve() must return the next action toward success from the current state, and following it from reset must reach a return of at least 0.99 within maxTurns on every seed. Check the win condition and the reward on the winning step.",
  E_NONDETERMINISTIC:
    "Use only Math.random for randomness and set every piece of state in reset(seed): the same seed and actions must give the same episode, and the same hint, on any instance.",
  E_TRIVIAL:
    "A policy that knows nothing wins too often: make the goal depend on information the agent must earn, widen the answer space, and never reward empty, repeated or random actions with success.",
  E_TIMEOUT:
    "A call ran past its CPU budget: precompute less in reset() and avoid loops that may not end.",
  E_MEMORY:
    "The program ran out of memory: keep the state small and avoid building large arrays or strings.",
  E_OUTPUT_SIZE:
    "A returned value or the program itself is too large: keep observations, tool results and the source short.",
  E_TIME_BUDGET:
    "Validation as a whole took too long: make every method fast (well under its deadline) and keep maxTurns no larger than the task needs.",
});

const REPLY = "Answer with the complete corrected program in one ```javascript block.";

/** The repair message for a refused design; for a Python design (`language` python) it asks for a ```python block. */
export function renderRepairMessage(
  problem: DesignProblem,
  language: "javascript" | "python" = "javascript",
): string {
  const text = renderJavaScriptRepair(problem);
  return language === "python"
    ? text.replaceAll("```javascript", "```python").replaceAll("Math.random", "the random module")
    : text;
}

function renderJavaScriptRepair(problem: DesignProblem): string {
  if (problem.kind === "extraction") {
    return (
      `I could not take a program from your answer: ${problem.outcome.message} (${problem.outcome.code}).\n\n` +
      "Answer with the complete program in one ```javascript block that defines `class Environment`."
    );
  }
  if (problem.kind === "off-task") {
    return `Your program does not fit this design: ${problem.reason}.\n\nFix it and answer with the complete program in one \`\`\`javascript block.`;
  }
  if (problem.kind === "duplicate") {
    const { match } = problem;
    return (
      `Your program is nearly the same as the existing environment "${match.name}" ` +
      `(similarity ${match.score.toFixed(2)}: code ${match.code.toFixed(2)}, description ${match.description.toFixed(2)}).\n\n` +
      "Write a substantially different environment: another mechanism and another structure, not new names and numbers " +
      "for the same game. Answer with the complete program in one ```javascript block."
    );
  }
  const { report } = problem;
  const failed = report.checks.filter((c) => !c.ok);
  const lines = failed.map(
    (c) => `- ${c.code}: ${c.message}\n  What to do: ${CHECK_ADVICE[c.code]}`,
  );
  const passed = report.checks.filter((c) => c.ok).map((c) => c.code);
  return (
    `Your program failed validation.\n\nFailed checks:\n${lines.join("\n")}\n\n` +
    (passed.length ? `Passed: ${passed.join(", ")}.\n\n` : "") +
    `Fix these problems and keep what works. ${REPLY}`
  );
}
