/**
 * @module eval/bfcl/single/value-checkers
 * Upstream's per-parameter checkers (`type_checker`, `string_checker`, `list_checker`,
 * `dict_checker`, `list_dict_checker`): one argument value against its possible answers.
 */
import { SpadeError } from "../../../errors.js";
import type { AstVerdict } from "./ast-checker.js";
import { type PyTypeName, typeOf } from "./type-mapping.js";
import {
  dictGet,
  dictHas,
  isDict,
  type PyDict,
  pyEquals,
  PyTuple,
  type PyValue,
} from "../../python/index.js";

/** Python's `x in seq` (equality per element). */
export function pyIn(x: PyValue, seq: PyValue): boolean {
  if (typeof seq === "string") return typeof x === "string" && seq.includes(x);
  if (isDict(seq)) return typeof x !== "object" || x === null ? dictHas(seq, x as never) : false;
  return itemsOf(seq).some((item) => pyEquals(item, x));
}

/** The elements Python iterates over for a list, tuple or string. */
export function itemsOf(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (typeof v === "string") return [...v];
  if (isDict(v)) return [...v.keys()];
  throw new SpadeError("E_PARSE", `BFCL possible answer ${String(v)} is not a list`, {
    nextStep: "check the possible_answer file matches bfcl-eval 2026.3.23",
  });
}

/** Upstream's `standardize_string`: drops ` ,./-_*^`, lower-cases, `'` -> `"`. */
export function standardizeString(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replaceAll("'", '"');
}

function possibleAnswerType(possible: PyValue): PyTypeName | null {
  for (const a of itemsOf(possible)) if (!pyEquals(a, "")) return typeOf(a);
  return null;
}

/** `type_checker`'s result: `isVariable` when the possible answers have another type than expected. */
export interface TypeResult extends AstVerdict {
  isVariable: boolean;
}

/** Upstream's `type_checker`: `value` has the `expected` type (and `nested` element type). */
export function typeChecker(
  value: PyValue,
  possible: PyValue,
  expected: PyTypeName,
  nested: PyTypeName | null,
): TypeResult {
  let isVariable = false;
  const paType = possibleAnswerType(possible);
  if (paType !== null && paType !== expected) isVariable = true;
  let errorType = "type_error:simple";
  if (typeOf(value) === expected) {
    if (nested === null) return { valid: true, isVariable };
    for (const item of itemsOf(possible)) {
      let flag = true;
      if (Array.isArray(item)) {
        for (const v of itemsOf(value)) {
          if (!typeChecker(v, item, nested, null).valid) {
            flag = false;
            break;
          }
        }
      }
      if (flag) return { valid: true, isVariable };
    }
    errorType = "type_error:nested";
    if (paType !== null && typeOf(value) === paType)
      return { valid: false, errorType, isVariable: true };
    return { valid: false, errorType: "type_error:simple", isVariable: false };
  }
  if (paType !== null && typeOf(value) === paType)
    return { valid: true, errorType, isVariable: true };
  return { valid: false, errorType, isVariable: false };
}

const std = (v: PyValue): PyValue => (typeof v === "string" ? standardizeString(v) : v);

/** Upstream's `string_checker`: equal to an option once both are standardized. */
export function stringChecker(value: string, possible: PyValue): AstVerdict {
  const options = itemsOf(possible)
    .filter((a): a is string => typeof a === "string")
    .map(standardizeString);
  return options.includes(standardizeString(value))
    ? { valid: true }
    : { valid: false, errorType: "value_error:string" };
}

/** Upstream's `list_checker`: equal to an option element by element, strings standardized. */
export function listChecker(value: PyValue, possible: PyValue): AstVerdict {
  const mine = itemsOf(value).map(std);
  const options = itemsOf(possible).map((answer) => itemsOf(answer).map(std));
  return options.some((o) => pyEquals(o, mine))
    ? { valid: true }
    : { valid: false, errorType: "value_error:list/tuple" };
}

/** Upstream's `dict_checker`: every key known and every value among its options, in one answer. */
export function dictChecker(value: PyDict, possibles: PyValue[]): AstVerdict {
  let result: AstVerdict = { valid: false, errorType: "dict_checker:unclear" };
  for (const answer of possibles) {
    if (pyEquals(answer, "")) continue;
    result = { valid: false, errorType: "dict_checker:unclear" };
    let flag = true;
    const pa = answer as PyDict;
    for (const [key, v] of value) {
      if (!pyIn(key, pa)) {
        result = { valid: false, errorType: "value_error:dict_key" };
        flag = false;
        break;
      }
      const options = itemsOf(dictGet(pa, key)!).map(std);
      if (!options.some((o) => pyEquals(o, std(v)))) {
        result = { valid: false, errorType: "value_error:dict_value" };
        flag = false;
        break;
      }
    }
    for (const [key, v] of pa) {
      if (!dictHas(value, key) && !pyIn("", v)) {
        result = { valid: false, errorType: "value_error:dict_key" };
        flag = false;
        break;
      }
    }
    if (flag) return { valid: true };
  }
  return result;
}

/** Upstream's `list_dict_checker`: a list of dicts, each passing `dict_checker` against one answer. */
export function listDictChecker(value: PyValue, possibles: PyValue): AstVerdict {
  let result: AstVerdict = { valid: false, errorType: "list_dict_checker:unclear" };
  const mine = itemsOf(value);
  for (const answer of itemsOf(possibles)) {
    const answers = itemsOf(answer);
    if (mine.length !== answers.length) {
      result = { valid: false, errorType: "value_error:list_dict_count" };
      continue;
    }
    let flag = true;
    for (let i = 0; i < mine.length; i++) {
      result = dictChecker(mine[i] as PyDict, [answers[i]!]);
      if (!result.valid) {
        flag = false;
        break;
      }
    }
    if (flag) return { valid: true };
  }
  return result;
}
