/**
 * @module eval/bfcl/single/data
 * The BFCL v4 single-turn categories the reference runs (`non_live`, `live`) and their entries
 * and possible answers, read from `<root>/bfcl_eval/data` as the multi-turn data is: the pinned
 * bfcl-eval wheel's site-packages folder is such a root.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SpadeError } from "../../../errors.js";
import { isDict, parseJsonPy, type PyDict } from "../../python/index.js";
import { readText } from "../data.js";
import type { SingleFunctionDoc } from "./ast-checker.js";

/** bfcl-eval's `NON_LIVE_CATEGORY`. */
export const BFCL_NON_LIVE = [
  "simple_python",
  "simple_java",
  "simple_javascript",
  "multiple",
  "parallel",
  "parallel_multiple",
  "irrelevance",
] as const;

/** bfcl-eval's `LIVE_CATEGORY`. */
export const BFCL_LIVE = [
  "live_simple",
  "live_multiple",
  "live_parallel",
  "live_parallel_multiple",
  "live_irrelevance",
  "live_relevance",
] as const;

/** A single-turn category. */
export type BfclSingleCategory = (typeof BFCL_NON_LIVE)[number] | (typeof BFCL_LIVE)[number];

/** One single-turn entry: the chat, the functions offered and (AST categories) the possible answers. */
export interface BfclSingleEntry {
  id: string;
  category: BfclSingleCategory;
  question: Array<Array<{ role: string; content: string }>>;
  functions: SingleFunctionDoc[];
  /** `[{name: {param: [options]}}]`; null for the relevance and irrelevance categories. */
  groundTruth: PyDict[] | null;
}

/** Whether a category is scored by relevance (any call / no call) rather than by the AST checker. */
export function isRelevanceCategory(category: string): boolean {
  return category.includes("relevance");
}

function lines(path: string): string[] {
  return readText(path)
    .split("\n")
    .filter((l) => l.trim() !== "");
}

/** Reads one category's entries (and possible answers) from `<root>/bfcl_eval/data`. */
export function loadSingleEntries(root: string, category: BfclSingleCategory): BfclSingleEntry[] {
  const file = `BFCL_v4_${category}.json`;
  const dataDir = join(root, "bfcl_eval", "data");
  if (!existsSync(join(dataDir, file))) {
    throw new SpadeError("E_IO", `BFCL single-turn data ${join(dataDir, file)} is missing`, {
      nextStep:
        "pip install --no-deps bfcl-eval==2026.3.23 and pass --data <its site-packages folder> (it holds bfcl_eval/data with every category)",
    });
  }
  const answers = new Map<string, PyDict[]>();
  if (!isRelevanceCategory(category)) {
    for (const line of lines(join(dataDir, "possible_answer", file))) {
      const row = parseJsonPy(line);
      if (!isDict(row))
        throw new SpadeError("E_PARSE", `a line of possible_answer/${file} is not an object`, {
          nextStep: "reinstall the pinned bfcl-eval wheel",
        });
      answers.set(row.get("id") as string, row.get("ground_truth") as PyDict[]);
    }
  }
  return lines(join(dataDir, file)).map((line) => {
    const row = JSON.parse(line) as {
      id: string;
      question: BfclSingleEntry["question"];
      function: SingleFunctionDoc[];
    };
    const groundTruth = isRelevanceCategory(category) ? null : answers.get(row.id);
    if (groundTruth === undefined) {
      throw new SpadeError(
        "E_PARSE",
        `${row.id} has no possible answer in possible_answer/${file}`,
        { nextStep: "reinstall the pinned bfcl-eval wheel" },
      );
    }
    return { id: row.id, category, question: row.question, functions: row.function, groundTruth };
  });
}
