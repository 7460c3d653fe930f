/**
 * @module eval/acebench/normal
 * ACEBench's normal-category checker as upstream scores it (`model_eval/checker.py`
 * `normal_checker` and `eval_main.py`): whitespace-stripped `[f(a=1)]` output decoded to calls,
 * then per-function name counts, required and extra parameters, Python type checks and values.
 */
import {
  findKey,
  parsePythonCalls,
  type PyDict,
  pyEquals,
  PyException,
  type PyKey,
  pyRepr,
  pyStr,
  pyTypeName,
  type PyValue,
} from "../python/index.js";
import { PYTHON_TYPE_MAPPING } from "../bfcl/single/ast-checker.js";
import {
  bad,
  dictChecker,
  listChecker,
  listDictChecker,
  ok,
  stringChecker,
  typeChecker,
  type NormalVerdict,
} from "./normal-params.js";

export { standardizeString } from "../bfcl/single/ast-checker.js";
export type { NormalVerdict } from "./normal-params.js";

/** A decoded call as upstream's `decode_ast` gives it: `{name: {param: value}}`. */
export interface NormalCall {
  name: string;
  params: PyDict;
}

/** ACEBench's `type_mapping`: BFCL's (whose checker it forked) and its own schema types. */
const TYPE_MAPPING: Record<string, string> = {
  ...PYTHON_TYPE_MAPPING,
  list: "list",
  object: "dict",
  objectArray: "list",
  "list(string)": "list",
  "list(enum)": "list",
  int: "int",
  enum: "enumerate",
  number: "int",
};
const NESTED_TYPES = new Set([
  "array",
  "tuple",
  "list(string)",
  "list(enum)",
  "object",
  "objectArray",
]);

function mapType(t: PyValue | undefined): string {
  const key = typeof t === "string" ? t : pyRepr(t ?? null);
  const mapped = TYPE_MAPPING[key];
  if (mapped === undefined) throw new PyException("KeyError", pyRepr(t ?? null));
  return mapped;
}

function get(d: PyValue | undefined, key: string): PyValue | undefined {
  if (!(d instanceof Map)) {
    if (d === undefined) return undefined;
    throw new PyException("TypeError", `'${pyTypeName(d)}' object is not subscriptable`);
  }
  const k = findKey(d, key);
  return k === undefined ? undefined : d.get(k);
}

function need(d: PyValue | undefined, key: string): PyValue {
  const v = get(d, key);
  if (v === undefined) throw new PyException("KeyError", `'${key}'`);
  return v;
}

const has = (d: PyValue, key: string): boolean => d instanceof Map && findKey(d, key) !== undefined;

function isEmptyDict(v: PyValue | undefined): boolean {
  return v instanceof Map && v.size === 0;
}

/** Upstream's `simple_function_checker` for one call against one expected `{name: params}`. */
function simpleFunctionChecker(
  doc: PyValue | undefined,
  call: NormalCall,
  answer: PyValue,
  category: string,
): NormalVerdict {
  if (doc === undefined)
    throw new PyException("TypeError", "'NoneType' object is not subscriptable");
  const parameters = need(doc, "parameters");
  const callEmpty = call.params.size === 0;
  if (callEmpty && isEmptyDict(parameters)) return ok();
  if (callEmpty || isEmptyDict(parameters)) return bad("wrong_param", "");
  if (pyEquals(answer, need(parameters, "properties"))) return ok();
  if (isEmptyDict(answer)) return bad("wrong_param", "");
  const func = String(need(doc, "name"));
  if (call.name !== func) return bad("wrong_function_name", `expected ${func}, real ${call.name}`);
  const details = need(parameters, "properties");
  const required = need(parameters, "required");
  if (!Array.isArray(required)) throw new PyException("TypeError", "required is not a list");
  for (const p of required) {
    if (!has(call.params, String(p))) return bad("lack_args", `lack required_params: ${pyStr(p)}`);
  }
  for (const [pk, value0] of call.params) {
    const param = String(pk);
    if (!has(details, param) || !has(answer, param))
      return bad("addition_args", `addition params: ${param}`);
    const detail = need(details, param);
    const description = need(detail, "type");
    const expected = mapType(description);
    const descText = typeof description === "string" ? description : "";
    let nested: string | undefined;
    if (NESTED_TYPES.has(descText)) {
      const items = get(detail, "items");
      const itemType = items instanceof Map ? get(items, "type") : undefined;
      let nestedName: PyValue;
      if (itemType !== undefined) nestedName = itemType;
      else if (descText.includes("string")) nestedName = "string";
      else if (descText.includes("enum")) nestedName = "enum";
      else nestedName = "dict";
      nested = mapType(nestedName);
    }
    let value = value0;
    if (descText === "float" && typeof value === "bigint") value = Number(value);
    const expectedAnswer = need(answer, param);
    const typed = typeChecker(param, value, expectedAnswer, expected, nested, func);
    if (!typed.valid) return bad(typed.errorType, typed.error);
    if (typed.isVariable) continue;
    let r: NormalVerdict | undefined;
    if (expected === "dict") r = dictChecker(param, value, expectedAnswer, func);
    else if (expected === "list" && nested === "dict") {
      if (descText === "objectArray") {
        if (!Array.isArray(value) || !Array.isArray(expectedAnswer))
          throw new PyException("TypeError", "objectArray value is not a list");
        if (value.length !== expectedAnswer.length)
          return bad("value_error:dict_items", "Wrong number of parameters for dictionary.");
        // Upstream calls dict_checker here without its fourth argument: a TypeError.
        if (value.length > 0)
          throw new PyException(
            "TypeError",
            "dict_checker() missing 1 required positional argument: 'func_name'",
          );
      }
      r = listDictChecker(param, value as PyValue[], expectedAnswer, func);
    } else if (expected === "str")
      r = stringChecker(param, value as string, expectedAnswer, func, category);
    else if (expected === "list") r = listChecker(param, value as PyValue[], expectedAnswer, func);
    if (r !== undefined && !r.valid) return r;
  }
  return ok();
}

/**
 * Upstream's `normal_checker`: `answer` is one alternative of the ground truth, a dict
 * `{name or name_N: params}`; `docs` the entry's function documents.
 */
export function normalChecker(
  docs: PyValue,
  calls: NormalCall[],
  answer: PyDict,
  category: string,
): NormalVerdict {
  if (calls.length !== answer.size)
    return bad("wrong functions number", "The number of functions does not match the answer.");
  const originalNames = [...answer.keys()].map(String);
  const expected = [...answer].map(([k, v]) => ({
    name: String(k).replace(/_\d+$/, ""),
    params: v,
  }));
  const count = (names: string[]) =>
    names.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
  const got = count(calls.map((c) => c.name));
  const want = count(expected.map((e) => e.name));
  for (const name of got.keys())
    if (!want.has(name))
      return bad(
        "function_mismatch",
        `extra function detected: ${name} is not in the ground truth`,
      );
  for (const name of want.keys())
    if (!got.has(name))
      return bad(
        "function_mismatch",
        `extra function detected: ${name} is not in the ground truth`,
      );
  for (const [name, n] of got)
    if (n !== want.get(name))
      return bad(
        "function_mismatch",
        `incorrect count for function ${name}: [expected: ${want.get(name)}, actual: ${n}]`,
      );
  let result = ok();
  for (let i = 0; i < expected.length; i++) {
    const doc = findDescription(docs, originalNames[i]!);
    for (const call of calls) {
      if (call.name === expected[i]!.name) {
        result = simpleFunctionChecker(doc, call, expected[i]!.params, category);
        if (result.valid) break;
      } else {
        result = bad("simple_function_checker:unclear", "wrong_function");
      }
    }
    if (!result.valid) return result;
  }
  return result;
}

/** `find_description`: the first document whose name is a substring of `name`. */
function findDescription(docs: PyValue, name: string): PyValue | undefined {
  if (!Array.isArray(docs)) return docs;
  for (const d of docs) {
    const n = need(d, "name");
    if (typeof n === "string" && name.includes(n)) return d;
  }
  return undefined;
}

/**
 * Upstream's decode of a normal-category output: all whitespace removed, then a Python list of
 * calls (or a tuple of them) with keyword arguments (positional ones are dropped, as upstream's
 * decoder drops them); bare names are strings and nested calls dicts, as `resolve_ast_by_type` reads them.
 * Returns null where upstream's decode fails ("wrong_output_format").
 */
export function decodeNormalOutput(raw: string): NormalCall[] | null {
  const compact = raw.split(/\s+/).join("");
  const read = (src: string) =>
    parsePythonCalls(src, { astValues: true }).map((c) => ({
      name: c.name,
      params: new Map<PyKey, PyValue>(Object.entries(c.kwargs)),
    }));
  try {
    if (compact.startsWith("[")) return read(compact);
    // `f(a=1),g(b=2)` and `f(a=1),` are tuples, whose items upstream reads like a list's; a
    // lone call `f(a=1)` has none and fails.
    const calls = read(`[${compact}]`);
    return calls.length >= 2 || compact.endsWith(",") ? calls : null;
  } catch {
    return null;
  }
}
