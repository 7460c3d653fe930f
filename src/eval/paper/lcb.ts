/**
 * @module eval/paper/lcb
 * LiveCodeBench v6 as questions of the paper's table: one single-turn item per problem, with the
 * reference's prompt, graded by running LCB's tests in the Python sandbox (all public and
 * private tests must pass), the verdict kept per sample.
 */
import {
  gradeLcb,
  lcbExtract,
  lcbPrompt,
  verdictInfo,
  type LcbProblem,
  type LimitedPythonRunner,
} from "../suites/code/index.js";
import type { QaItem } from "./qa.js";

/** The reference's LiveCodeBench settings (eval_offline/configs/games.yaml). */
export const LCB_SETTINGS = {
  samples: 1,
  temperature: 0.2,
  top_p: 0.95,
  max_tokens: 16384,
} as const;

/** The problems as table items; `runner` runs each check (the sandbox, with LCB's limits per run). */
export function lcbItems(problems: readonly LcbProblem[], runner: LimitedPythonRunner): QaItem[] {
  return problems.map((problem) => {
    const tests = problem.publicTests.length + problem.privateTests.length;
    return {
      id: `livecodebench/${problem.questionId}`,
      system: null,
      user: lcbPrompt(problem),
      label: `passes all ${tests} tests`,
      extract: lcbExtract,
      // Grading goes through `grade`; a bare comparison cannot say whether code passes.
      correct: () => false,
      grade: async (text) => {
        const verdict = await gradeLcb(runner, problem, lcbExtract(text));
        return {
          correct: verdict.passed,
          info: { difficulty: problem.difficulty, ...verdictInfo(verdict) },
        };
      },
    };
  });
}
