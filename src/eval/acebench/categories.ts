/**
 * @module eval/acebench/categories
 * ACEBench's normal and special categories: their data, per-category accuracy exactly as
 * upstream's `eval_main.py` computes it (single-turn, multi-turn by dialogue, special by
 * phrases), and the overall summary of `generate_result_csv` (0.578 N + 0.2676 S + 0.1545 A).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import {
  parseJsonPy,
  type PyDict,
  PyException,
  pyRepr,
  pyTypeName,
  type PyValue,
  roundFloat,
} from "../python/index.js";
import { decodeNormalOutput, normalChecker, type NormalVerdict } from "./normal.js";

/** The twelve normal categories in upstream's `ACE_DATA_CATEGORY["normal"]` order. */
export const NORMAL_CATEGORIES = [
  "normal_single_turn_single_function",
  "normal_single_turn_parallel_function",
  "normal_multi_turn_user_adjust",
  "normal_multi_turn_user_switch",
  "normal_similar_api",
  "normal_preference",
  "normal_atom_bool",
  "normal_atom_enum",
  "normal_atom_number",
  "normal_atom_list",
  "normal_atom_object_deep",
  "normal_atom_object_short",
] as const;

/** The three special categories. */
export const SPECIAL_CATEGORIES = [
  "special_incomplete",
  "special_error_param",
  "special_irrelevant",
] as const;

/** A normal or special category name. */
export type NsCategory = (typeof NORMAL_CATEGORIES)[number] | (typeof SPECIAL_CATEGORIES)[number];

/** One normal or special entry (English data) with its ground truth, values typed as Python's json. */
export interface NsEntry {
  id: string;
  category: NsCategory;
  question: string;
  /** Function documents, as Python values. */
  functions: PyValue;
  /** `profile` of preference entries, `time` where given. */
  profile: string;
  time: string;
  /** The ground truth: a dict, or a list of alternative dicts (normal); `{name: [values]}` (special). */
  groundTruth: PyValue;
}

/** One item's verdict. */
export interface NsItemResult {
  id: string;
  valid: boolean;
  errorType: string;
  error: string;
}

/** A category's score as upstream writes the first line of its score file. */
export interface NsCategoryScore {
  category: NsCategory;
  accuracy: number;
  correct: number;
  total: number;
  /** normal_multi_turn only: the mean per-dialogue share of correct turns. */
  processAccuracy?: number;
  items: NsItemResult[];
}

function readLines(path: string): PyDict[] {
  if (!existsSync(path))
    throw new SpadeError("E_IO", `missing ACEBench file ${path}`, {
      nextStep: "point --data at the acebench folder of the benchmarks",
    });
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        const v = parseJsonPy(l);
        if (!(v instanceof Map)) throw new Error("not an object");
        return v;
      } catch (err) {
        throw new SpadeError(
          "E_IO",
          `cannot read line ${i + 1} of ACEBench file ${path}: ${(err as Error).message}`,
          { cause: err },
        );
      }
    });
}

const str = (d: PyDict, k: string): string =>
  typeof d.get(k) === "string" ? (d.get(k) as string) : "";

/** Loads one English normal or special category from `dir` (the acebench folder), entries paired with answers by position. */
export function loadNsEntries(dir: string, category: NsCategory): NsEntry[] {
  const base = join(dir, "data_all", "data_en");
  const prompts = readLines(join(base, `data_${category}.json`));
  const answers = readLines(join(base, "possible_answer", `data_${category}.json`));
  if (prompts.length !== answers.length)
    throw new SpadeError(
      "E_IO",
      `ACEBench ${category}: ${prompts.length} entries but ${answers.length} answers`,
      { nextStep: "restore the benchmark files from the source commit" },
    );
  return prompts.map((p, i) => {
    const a = answers[i]!;
    if (p.get("id") !== a.get("id"))
      throw new SpadeError(
        "E_IO",
        `ACEBench ${category}: entry ${str(p, "id")} is paired with answer ${str(a, "id")}`,
        { nextStep: "restore the benchmark files from the source commit" },
      );
    return {
      id: str(p, "id"),
      category,
      question: str(p, "question"),
      functions: p.get("function") ?? [],
      profile: str(p, "profile"),
      time: str(p, "time"),
      groundTruth: a.get("ground_truth") ?? null,
    };
  });
}

function alternatives(groundTruth: PyValue): PyValue[] {
  return Array.isArray(groundTruth) ? groundTruth : [groundTruth];
}

/** Checks one normal output against every alternative; the first alternative's error is kept. */
export function checkNormalItem(entry: NsEntry, output: string): NsItemResult {
  const calls = decodeNormalOutput(output);
  if (calls === null)
    return {
      id: entry.id,
      valid: false,
      errorType: "wrong_output_format",
      error: "Invalid syntax. Failed to decode AST.",
    };
  let first: NsItemResult | undefined;
  for (const alt of alternatives(entry.groundTruth)) {
    let verdict: NormalVerdict;
    try {
      if (!(alt instanceof Map))
        throw new PyException(
          "AttributeError",
          `'${pyTypeName(alt)}' object has no attribute 'items'`,
        );
      verdict = normalChecker(entry.functions, calls, alt, entry.category);
    } catch (err) {
      if (!(err instanceof PyException)) throw err;
      // Upstream's run stops at this exception; the item is counted wrong here and the run goes on.
      verdict = {
        valid: false,
        errorType: "checker_exception",
        error: `upstream's checker raises ${err.message}`,
      };
    }
    if (verdict.valid) return { id: entry.id, valid: true, errorType: "", error: "" };
    first ??= { id: entry.id, ...verdict };
  }
  return (
    first ?? {
      id: entry.id,
      valid: false,
      errorType: "no_ground_truth",
      error: "the entry has no ground truth",
    }
  );
}

function phraseFails(
  output: string,
  groundTruth: PyValue,
  category: NsCategory,
): { errorType: string; error: string } | undefined {
  const pairs = groundTruth instanceof Map ? [...groundTruth] : [];
  const values = (v: PyValue) =>
    Array.isArray(v) ? v.map(String) : typeof v === "string" ? [...v] : [];
  const detection = (error: string) => ({ errorType: "error_detection", error });
  const correction = (error: string) => ({ errorType: "error_correction", error });
  // Upstream overwrites its error at each miss: the last value the output does not name counts.
  const lastUnnamed = (vs: PyValue) => values(vs).findLast((v) => !output.includes(v));
  let fail: { errorType: string; error: string } | undefined;
  if (category === "special_incomplete") {
    for (const [name, vs] of pairs) {
      const unnamed = lastUnnamed(vs);
      if (!output.includes("Missing necessary parameters"))
        fail = detection(`missing parameters of ${String(name)} not pointed out`);
      else if (!output.includes(String(name)))
        fail = correction(`the function ${String(name)} is not named`);
      else if (unnamed !== undefined)
        fail = correction(`the missing parameter ${unnamed} is not named`);
    }
  } else if (category === "special_error_param") {
    for (const [name, vs] of pairs) {
      const unnamed = lastUnnamed(vs);
      if (!output.includes("There is incorrect value"))
        fail = detection(`incorrect values of ${String(name)} not pointed out`);
      else if (unnamed !== undefined)
        fail = correction(`the incorrect value ${unnamed} is not named`);
    }
  } else if (!output.includes("the limitations of the function")) {
    fail = {
      errorType: "error_detection",
      error: "The model cannot solve this problem, due to the limitations of the function",
    };
  }
  return fail;
}

/** Upstream's `special_eval` for one output: fixed phrases plus every named function and value, as substrings. */
export function checkSpecialItem(entry: NsEntry, output: string): NsItemResult {
  const fail = phraseFails(output, entry.groundTruth, entry.category);
  return fail
    ? { id: entry.id, valid: false, ...fail }
    : { id: entry.id, valid: true, errorType: "", error: "" };
}

const round3 = (x: number): number => roundFloat(x, 3);

/** `normal_multi_turn_user_*_D_T`: the dialogue D and the turn T of an id. */
function dialogueOf(id: string): { dialogue: string; turn: string } {
  const parts = id.split("_");
  return { dialogue: parts[parts.length - 2] ?? "", turn: parts[parts.length - 1] ?? "" };
}

/**
 * Scores one category from outputs in entry order. Accuracies are rounded as upstream rounds
 * them: single-turn to 3 places; multi-turn the share of dialogues whose turns are all right
 * (consecutive ids of the same dialogue grouped), 3 places; special not rounded.
 */
export function scoreCategory(entries: NsEntry[], outputs: string[]): NsCategoryScore {
  if (entries.length !== outputs.length)
    throw new SpadeError("E_CONFIG", `${outputs.length} outputs for ${entries.length} entries`, {
      nextStep: "give one output per entry, in entry order",
    });
  const special = entries[0]?.category.startsWith("special") ?? false;
  return scoreVerdicts(
    entries,
    entries.map((e, i) =>
      special ? checkSpecialItem(e, outputs[i]!) : checkNormalItem(e, outputs[i]!),
    ),
  );
}

/** A category's score from its items' verdicts (in entry order), as `scoreCategory` computes it. */
export function scoreVerdicts(entries: NsEntry[], items: NsItemResult[]): NsCategoryScore {
  const category = entries[0]?.category;
  if (category === undefined)
    throw new SpadeError("E_CONFIG", "no entries to score", {
      nextStep: "load a category with entries",
    });
  const correct = items.filter((r) => r.valid).length;
  const total = items.length;
  if (category.startsWith("special"))
    return { category, accuracy: correct / total, correct, total, items };
  if (!category.startsWith("normal_multi_turn"))
    return { category, accuracy: round3(correct / total), correct, total, items };
  const groups: boolean[][] = [];
  let last: string | undefined;
  entries.forEach((e, i) => {
    const { dialogue } = dialogueOf(e.id);
    if (groups.length > 0 && dialogue === last) groups[groups.length - 1]!.push(items[i]!.valid);
    else groups.push([items[i]!.valid]);
    last = dialogue;
  });
  const end = groups.map((g) => (g.includes(false) ? 0 : 1) as number);
  const process = groups.map((g) => round3(g.filter(Boolean).length / g.length));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    category,
    accuracy: round3(mean(end)),
    correct,
    total,
    processAccuracy: round3(mean(process)),
    items,
  };
}

/** `calculate_unweighted_accuracy`: the mean of the categories' accuracies, 3 places (0 for none). */
export function unweightedMean(accuracies: number[]): number {
  if (accuracies.length === 0) return 0;
  return round3(accuracies.reduce((a, b) => a + b, 0) / accuracies.length);
}

/**
 * ACEBench's overall score from the three group scores: `generate_result_csv`'s weights, rounded
 * to 3 places as upstream writes it, or unrounded as the SPADE reference's suite reports it.
 */
export function overallScore(
  normal: number,
  special: number,
  agent: number,
  options: { round?: boolean } = {},
): number {
  const x = special * 0.2676 + normal * 0.578 + agent * 0.1545;
  return options.round === false ? x : round3(x);
}

/** The SPADE reference's group score (eval_offline/suites/acebench.py): the plain mean of the categories' accuracies. */
export function groupMean(accuracies: number[]): number | null {
  return accuracies.length === 0 ? null : accuracies.reduce((a, b) => a + b, 0) / accuracies.length;
}

/**
 * The ground truth written as a model would answer: the first alternative as
 * `[name(k=v, ...)]` (normal), or upstream's prompted phrase naming every function and value
 * (special). The gold check scores these.
 */
export function goldOutput(entry: NsEntry): string {
  const gt = entry.groundTruth;
  if (entry.category === "special_irrelevant")
    return '["Due to the limitations of the function, I cannot solve this problem."]';
  const pairs = gt instanceof Map ? [...gt] : [];
  const joined = (v: PyValue) => (Array.isArray(v) ? v.map(String).join(",") : String(v));
  if (entry.category === "special_incomplete")
    return `[${pairs.map(([n, v]) => `"Missing necessary parameters (${joined(v)}) for the api (${String(n)})"`).join(", ")}]`;
  if (entry.category === "special_error_param")
    return `[${pairs.map(([n, v]) => `"There is incorrect value (${joined(v)}) for the parameters (${String(n)}) in the conversation history."`).join(", ")}]`;
  const first = alternatives(gt)[0];
  const calls = first instanceof Map ? [...first] : [];
  const call = ([name, params]: [PyValue, PyValue]) => {
    const args =
      params instanceof Map ? [...params].map(([k, v]) => `${String(k)}=${pyRepr(v)}`) : [];
    return `${String(name).replace(/_\d+$/, "")}(${args.join(", ")})`;
  };
  return `[${calls.map(call).join(", ")}]`;
}
