/**
 * @module eval/acebench/checker
 * Upstream's agent scoring: end-to-end accuracy (`agent_eval` + `agent_checker`: the saved final
 * state against the ground truth, class by class, with upstream's leniencies kept) and process
 * accuracy (`agent_eval_process`: how many milestones appear, in order, among the messages the
 * agent sent to execution).
 */
import type { Json, JsonObject } from "../../env/index.js";
import { fromJson, pyEquals, roundFloat, stripWhitespace } from "../python/index.js";

/** The verdict on one entry's final state. */
export interface EndToEndResult {
  valid: boolean;
  /** Upstream's error texts (informational). */
  errors: string[];
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Python `==` on JSON values (`1 == 1.0 == True`). */
function jsonEq(a: Json, b: Json): boolean {
  return pyEquals(fromJson(a), fromJson(b));
}

/**
 * Python's `key in value` where `value` came from JSON; null where Python would raise (upstream's
 * checker would then crash, which this port scores as a mismatch).
 */
function jsonContains(value: Json, key: string): boolean | null {
  if (isObject(value)) return Object.hasOwn(value, key);
  if (Array.isArray(value)) return value.some((x) => jsonEq(x, key));
  if (typeof value === "string") return value.includes(key);
  return null;
}

/** Upstream's `agent_checker` for one class: every attribute the model saved must match. */
export function agentChecker(modelItem: JsonObject, expectedItem: JsonObject): EndToEndResult {
  const result: EndToEndResult = { valid: true, errors: [] };
  const scenario = Object.keys(expectedItem)[0] ?? "";
  const expected = Object.values(expectedItem)[0];
  const modelParams = Object.values(modelItem)[0];
  if (!isObject(expected) || !isObject(modelParams))
    return { valid: false, errors: [`class(${scenario}) is not an attribute dict`] };
  for (const [param, modelValue] of Object.entries(modelParams)) {
    if (!Object.hasOwn(expected, param)) {
      result.valid = false;
      result.errors.push(`class(${scenario}) attributes(${param}) missing in possible_answer.`);
      continue;
    }
    const expectedValue = expected[param] as Json;
    if (isObject(expectedValue)) {
      // Only the expected keys are compared: extra keys in the model's value pass, as upstream.
      for (const [key, value] of Object.entries(expectedValue)) {
        const present = jsonContains(modelValue, key);
        if (present === null || (present && !isObject(modelValue))) {
          result.valid = false;
          result.errors.push(
            `class(${scenario}) attributes(${param}) cannot be compared (upstream's checker raises here)`,
          );
        } else if (!present) {
          result.valid = false;
          result.errors.push(`class(${scenario}) attributes(${param}) wrong: ${key} missing`);
        } else if (!jsonEq(value, (modelValue as JsonObject)[key] as Json)) {
          result.valid = false;
          result.errors.push(`class(${scenario}) attributes(${param}.${key}) wrong`);
        }
      }
    } else if (!jsonEq(expectedValue, modelValue)) {
      result.valid = false;
      result.errors.push(`class(${scenario}) attributes(${param}) wrong`);
    }
  }
  return result;
}

function sameKeys(a: JsonObject, b: JsonObject): boolean {
  const ka = new Set(Object.keys(a));
  const kb = Object.keys(b);
  return ka.size === kb.length && kb.every((k) => ka.has(k));
}

/**
 * What to do with an expected class the model's state lacks (a misspelled class name in the
 * data). `fail` (default): the entry fails, as in the reference replay summary. `carry`: as
 * upstream's `agent_eval` loop literally does, the class goes unchecked and the previous class's
 * verdict stands.
 */
export type MissingClassRule = "fail" | "carry";

/**
 * Upstream's end-to-end verdict: as many classes as expected, and each expected class checked
 * with `agentChecker` against the model's class of the same name.
 */
export function checkEndToEnd(
  modelState: readonly JsonObject[],
  groundTruth: readonly JsonObject[],
  missingClass: MissingClassRule = "fail",
): EndToEndResult {
  if (modelState.length !== groundTruth.length)
    return { valid: false, errors: ["wrong number of class"] };
  const out: EndToEndResult = { valid: true, errors: [] };
  let last: EndToEndResult = { valid: true, errors: [] };
  for (const expected of groundTruth) {
    const matched = modelState.find((m) => sameKeys(m, expected));
    if (matched) last = agentChecker(matched, expected);
    else if (missingClass === "fail")
      last = {
        valid: false,
        errors: [`class(${Object.keys(expected).join(",")}) not in the model's state`],
      };
    if (!last.valid) {
      out.valid = false;
      out.errors.push(...last.errors);
    }
  }
  return out;
}

function pathAccuracy(process: readonly string[], path: readonly string[]): number {
  if (path.length === 0) return 1;
  let found = 0;
  let at = 0;
  for (const stone of path) {
    const want = stripWhitespace(stone);
    while (at < process.length) {
      const hit = stripWhitespace(process[at] as string) === want;
      at++;
      if (hit) {
        found++;
        break;
      }
    }
  }
  return found / path.length;
}

/**
 * Upstream's process accuracy of one entry that is not end-to-end correct: the share of
 * milestones found in order among `process` (the messages sent to execution). With several
 * paths, the best path's share rounded to 3 places; with one path, the share unrounded.
 */
export function processAccuracy(
  process: readonly string[],
  mileStone: readonly string[] | readonly string[][],
): number {
  if (mileStone.length > 0 && Array.isArray(mileStone[0])) {
    let best = -1;
    for (const path of mileStone as readonly string[][])
      best = Math.max(best, roundFloat(pathAccuracy(process, path), 3));
    return best;
  }
  return pathAccuracy(process, mileStone as readonly string[]);
}

/** One entry's two scores. */
export interface EntryScore {
  id: string;
  /** Final state equals the ground truth (upstream's end-to-end verdict). */
  endToEnd: boolean;
  /** 1 when end-to-end correct, else `processAccuracy`. */
  process: number;
}

/** Scores one entry from its final state and the messages it sent to execution. */
export function scoreEntry(
  entry: {
    id: string;
    groundTruth: readonly JsonObject[];
    mileStone: readonly string[] | readonly string[][];
  },
  finalState: readonly JsonObject[],
  process: readonly string[],
  missingClass: MissingClassRule = "fail",
): EntryScore & { errors: string[] } {
  const e2e = checkEndToEnd(finalState, entry.groundTruth, missingClass);
  return {
    id: entry.id,
    endToEnd: e2e.valid,
    process: e2e.valid ? 1 : processAccuracy(process, entry.mileStone),
    errors: e2e.errors,
  };
}

/** Upstream's set-level numbers: both accuracies rounded to 3 places. */
export function aggregateScores(scores: readonly EntryScore[]): {
  endToEndAccuracy: number;
  processAccuracy: number;
  correct: number;
  total: number;
} {
  const total = scores.length;
  const correct = scores.filter((s) => s.endToEnd).length;
  const processSum = scores.reduce((sum, s) => sum + s.process, 0);
  return {
    endToEndAccuracy: total === 0 ? 0 : roundFloat(correct / total, 3),
    processAccuracy: total === 0 ? 0 : roundFloat(processSum / total, 3),
    correct,
    total,
  };
}
