/**
 * @module eval/suites/code/suites
 * HumanEval (164) and MBPP sanitized, test split (task ids 11-510, 257 problems) as single-turn
 * items: the answer's code block is run with the problem's tests in the Python sandbox; reward 1
 * when the run passes. The run outcome (failed, error, timeout, memory, network...) is recorded.
 */
import { join } from "node:path";
import type { Action } from "../../../env/index.js";
import { SpadeError } from "../../../errors.js";
import { field, readJson, readJsonl, takeLimit } from "../../data.js";
import { referenceHint } from "../single-turn-env.js";
import type { Grade, ItemSpec } from "../types.js";
import { CODE_INSTRUCTION, extractCode, fenceCode } from "./extract.js";
import type { PythonRunResult } from "./python-sandbox.js";

/** Anything that runs a Python program and reports how it ended (the sandbox, or a test double). */
export interface PythonRunner {
  run(source: string): Promise<PythonRunResult>;
}

/** Gives the runner, created on first use (creating the sandbox probes the machine). */
export type RunnerProvider = () => Promise<PythonRunner>;

/** Reads a code suite from the data folder `root` (the first `limit` items if given). */
export type CodeSuiteLoader = (
  root: string,
  runner: RunnerProvider,
  limit?: number,
) => Promise<ItemSpec[]>;

/** Runs `program` and turns the outcome into a grade. */
async function gradeProgram(runner: RunnerProvider, code: string, program: string): Promise<Grade> {
  const result = await (await runner()).run(program);
  return {
    correct: result.outcome === "passed",
    info: {
      outcome: result.outcome,
      detail: result.detail,
      durationMs: result.durationMs,
      codeChars: code.length,
    },
  };
}

/** The HumanEval check program: `prompt + completion + "\n" + test + "\n" + check(entry_point)`. */
export function humanEvalProgram(
  prompt: string,
  completion: string,
  test: string,
  entryPoint: string,
): string {
  return `${prompt}${completion}\n${test}\ncheck(${entryPoint})\n`;
}

/** HumanEval items from `<root>/humaneval/HumanEval.jsonl.gz`, ids `HumanEval/<n>`. */
export const loadHumanEval: CodeSuiteLoader = async (root, runner, limit) => {
  const path = join(root, "humaneval", "HumanEval.jsonl.gz");
  const rows = takeLimit(await readJsonl(path), limit);
  return rows.map((row) => {
    const prompt = field(row, "prompt", path);
    const solution = field(row, "canonical_solution", path);
    const test = field(row, "test", path);
    const entryPoint = field(row, "entry_point", path);
    return {
      suite: "humaneval",
      id: field(row, "task_id", path),
      prompt: `Complete the following Python function. You may repeat the whole function or write only the rest of its body.\n\n${fenceCode(prompt)}\n\n${CODE_INSTRUCTION}`,
      reference: solution,
      // The canonical completion continues the prompt's function body.
      oracleText: fenceCode(solution),
      hint: referenceHint("A correct completion:\n", solution),
      grade: (action: Action) => {
        const code = extractCode(action.text);
        return gradeProgram(runner, code, humanEvalProgram(prompt, code, test, entryPoint));
      },
    } satisfies ItemSpec;
  });
};

/** The MBPP test split: task ids 11 to 510 (the paper's split; 257 problems in the sanitized set). */
export const MBPP_TEST_IDS = { first: 11, last: 510 } as const;

/** The MBPP check program: the code, then the test imports and the asserts. */
export function mbppProgram(
  code: string,
  testImports: readonly string[],
  tests: readonly string[],
): string {
  return `${code}\n\n${testImports.join("\n")}\n${tests.join("\n")}\n`;
}

function stringList(row: unknown, name: string, path: string): string[] {
  const value = (row as Record<string, unknown>)[name];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new SpadeError(
      "E_IO",
      `benchmark file ${path}: a record lacks the string list "${name}"`,
    );
  }
  return value as string[];
}

/** MBPP sanitized test items from `<root>/mbpp/sanitized-mbpp.json`, ids `mbpp/<task_id>`. */
export const loadMbpp: CodeSuiteLoader = async (root, runner, limit) => {
  const path = join(root, "mbpp", "sanitized-mbpp.json");
  const data = await readJson(path);
  if (!Array.isArray(data))
    throw new SpadeError("E_IO", `benchmark file ${path} is not a JSON array`);
  const test = data.filter((row) => {
    const id = (row as Record<string, unknown>).task_id;
    return typeof id === "number" && id >= MBPP_TEST_IDS.first && id <= MBPP_TEST_IDS.last;
  });
  return takeLimit(test, limit).map((row) => {
    const taskId = (row as Record<string, unknown>).task_id as number;
    const code = field(row, "code", path);
    const tests = stringList(row, "test_list", path);
    const imports = stringList(row, "test_imports", path);
    return {
      suite: "mbpp",
      id: `mbpp/${taskId}`,
      prompt: `${field(row, "prompt", path)}\nYour code should pass these tests:\n\n${tests.join("\n")}\n\n${CODE_INSTRUCTION}`,
      reference: code,
      oracleText: fenceCode(code),
      hint: referenceHint("A correct solution:\n", code),
      grade: (action: Action) => {
        const answer = extractCode(action.text);
        return gradeProgram(runner, answer, mbppProgram(answer, imports, tests));
      },
    } satisfies ItemSpec;
  });
};
