/**
 * @module eval/acebench/normal-params
 * The per-parameter checks of ACEBench's normal checker (`model_eval/checker.py`): the Python
 * type check, then the string, list and dict value checks, each giving upstream's verdict.
 */
import {
  findKey,
  pyEquals,
  PyException,
  pyRepr,
  pyStr,
  PyTuple,
  pyTypeName,
  type PyValue,
} from "../python/index.js";
import { standardizeString } from "../bfcl/single/ast-checker.js";

/** One verdict: `valid`, and upstream's `error_type` (empty when valid). */
export interface NormalVerdict {
  valid: boolean;
  errorType: string;
  error: string;
}

/** A valid verdict. */
export const ok = (): NormalVerdict => ({ valid: true, errorType: "", error: "" });
/** An invalid verdict with upstream's `error_type` and message. */
export const bad = (errorType: string, error: string): NormalVerdict => ({
  valid: false,
  errorType,
  error,
});

/** Python's `type(v)` name, with a tuple counted as itself (never equal to list). */
const typeOf = (v: PyValue): string => pyTypeName(v);

/** `possible_answer != ""` then `type(possible_answer)`. */
function answerType(answer: PyValue): string | undefined {
  return answer === "" ? undefined : typeOf(answer);
}

/** Python iteration: list and tuple items, dict keys, string characters. */
function iterate(v: PyValue): readonly PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return v.items;
  if (v instanceof Map) return [...v.keys()];
  if (typeof v === "string") return [...v];
  throw new PyException("TypeError", `'${pyTypeName(v)}' object is not iterable`);
}

const boolWord = (v: PyValue): PyValue => (v === "true" ? true : v === "false" ? false : v);

/**
 * Upstream's `type_checker`: `value0` against the mapped `expected` type (and `nested` item type);
 * `isVariable` when the answer's own type differs, so the value checks are skipped.
 */
export function typeChecker(
  param: string,
  value0: PyValue,
  answer: PyValue,
  expected: string,
  nested: string | undefined,
  func: string,
): NormalVerdict & { isVariable: boolean } {
  let isVariable = false;
  const at = answerType(answer);
  if (at !== undefined && at !== expected) isVariable = true;
  const value = boolWord(value0);
  // When the nested check finds no matching item, upstream marks the result invalid and then
  // returns that same result from its fallback below: the value fails whatever the fallback says.
  let nestedFailed = false;
  if (typeOf(value) === expected) {
    if (nested === undefined) return { ...ok(), isVariable };
    for (const item of iterate(answer)) {
      let flag = true;
      if (Array.isArray(item)) {
        for (const v of iterate(value)) {
          if (!typeChecker(param, v, item, nested, undefined, func).valid) {
            flag = false;
            break;
          }
        }
      }
      if (flag) return { ...ok(), isVariable };
    }
    nestedFailed = true;
  }
  if (at !== undefined && (typeOf(value) === at || pyEquals(answer, value))) {
    return nestedFailed
      ? {
          ...bad("type_error", `nested type checking failed for parameter ${pyRepr(param)}`),
          isVariable: true,
        }
      : { ...ok(), isVariable: true };
  }
  return {
    ...bad("type_error", `wrong type for parameter (${param}) of api (${func})`),
    isVariable,
  };
}

/** Upstream's `string_checker`: standardized strings equal (agent categories) or contained. */
export function stringChecker(
  param: string,
  output: string,
  answer: PyValue,
  func: string,
  category: string,
): NormalVerdict {
  if (typeof answer !== "string")
    throw new PyException("TypeError", "expected string or bytes-like object");
  const out = standardizeString(output);
  const want = standardizeString(answer);
  const fails = category.includes("agent") ? out !== want : !out.includes(want);
  return fails
    ? bad("value_error:string", `wrong value for parameter (${param}) of api (${func})`)
    : ok();
}

/** A checker of a list parameter `param` of `func`: the model's list against the answer. */
type ListChecker = (
  param: string,
  output: PyValue[],
  answer: PyValue,
  func: string,
) => NormalVerdict;

/** The answer as a list; upstream's `len(answer)` raises on anything else. */
function answerList(answer: PyValue): PyValue[] {
  if (!Array.isArray(answer))
    throw new PyException("TypeError", `object of type '${pyTypeName(answer)}' has no len()`);
  return answer;
}

/** Upstream's `list_checker`: the standardized lists equal. */
export const listChecker: ListChecker = (param, output, answer, func) => {
  const expected = answerList(answer);
  const std = (xs: PyValue[]) => xs.map((x) => (typeof x === "string" ? standardizeString(x) : x));
  return pyEquals(std(output), std(expected))
    ? ok()
    : bad(
        "value_error:list/tuple",
        `wrong value for parameter (${pyRepr(param)}) of api (${func})`,
      );
};

/** Upstream's `dict_checker`: same keys, nested dicts recursively, values contained as strings. */
export function dictChecker(
  param: string,
  output: PyValue,
  answer: PyValue,
  func: string,
): NormalVerdict {
  const wrong = () => bad("value_error", `wrong value for parameter (${param}) of api (${func})`);
  if (!(output instanceof Map))
    return bad("value_error", `wrong type for parameter (${param}) of api (${func})`);
  if (!(answer instanceof Map))
    throw new PyException(
      "AttributeError",
      `'${pyTypeName(answer)}' object has no attribute 'keys'`,
    );
  if (output.size !== answer.size) return wrong();
  let result = ok();
  for (const [key, raw] of output) {
    const value = boolWord(raw);
    const ak = findKey(answer, key);
    if (ak === undefined) return wrong();
    const expected = answer.get(ak)!;
    if (expected instanceof Map) {
      result = dictChecker(param, value, expected, func);
      if (!result.valid) return result;
    } else {
      const stdValue = typeof value === "string" ? standardizeString(value) : value;
      const stdAnswer = typeof expected === "string" ? standardizeString(expected) : expected;
      if (!pyStr(stdValue).includes(pyStr(stdAnswer))) return wrong();
    }
  }
  return result;
}

/** Upstream's `list_dict_checker`: as many dicts as the answer, each passing `dictChecker`. */
export const listDictChecker: ListChecker = (param, output, answer, func) => {
  const expected = answerList(answer);
  if (output.length !== expected.length)
    return bad(
      "value_error:list_dict_count",
      `wrong value for parameter (${param}) of api (${func})`,
    );
  let result = ok();
  for (let i = 0; i < output.length; i++) {
    result = dictChecker(param, output[i]!, expected[i]!, func);
    if (!result.valid) return result;
  }
  return result;
};
