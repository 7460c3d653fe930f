/**
 * @module eval/bfcl/single/ast-checker
 * BFCL's single-turn AST checker (bfcl-eval 2026.3.23 `ast_checker.py`): a model's decoded calls
 * against the possible answers, verdict and error type; Java and JavaScript arguments go through
 * upstream's type converters first.
 */
import { SpadeError } from "../../../errors.js";
import { JAVA_TYPE_CONVERSION, javaTypeConverter } from "./java-types.js";
import { JS_TYPE_CONVERSION, jsTypeConverter } from "./js-types.js";
import {
  dictGet,
  dictHas,
  isDict,
  type PyDict,
  pyEquals,
  PyTuple,
  type PyValue,
} from "../../python/index.js";

/** A checker verdict: `errorType` is upstream's string (e.g. "value_error:string") when invalid. */
export interface AstVerdict {
  valid: boolean;
  errorType?: string;
}

/** One decoded call: `{function_name: {param: value}}` (a dict with one key, as upstream decodes). */
export type DecodedCall = PyDict;

/** Python type names the checker compares with `type(x) == T`. */
type PyTypeName =
  | "str"
  | "int"
  | "float"
  | "bool"
  | "list"
  | "tuple"
  | "dict"
  | "set"
  | "NoneType"
  | "object";

/** The language of a category's functions, as upstream derives it from the category name. */
export type BfclLanguage = "python" | "java" | "javascript";

/** `simple_java` is Java, `simple_javascript` JavaScript, every other category Python. */
export function languageOf(testCategory: string): BfclLanguage {
  if (testCategory.includes("javascript")) return "javascript";
  return testCategory.includes("java") ? "java" : "python";
}

const NESTED_CONVERSION_TYPES = new Set(["Array", "ArrayList", "array"]);

/** BFCL's `PYTHON_TYPE_MAPPING`: a parameter's schema type as the Python type its value has. */
export const PYTHON_TYPE_MAPPING: Readonly<Record<string, PyTypeName>> = {
  string: "str",
  integer: "int",
  float: "float",
  boolean: "bool",
  array: "list",
  tuple: "list",
  dict: "dict",
  any: "str",
};

const NESTED_TYPES = new Set(["array", "tuple"]);

/** `type(v)` as a name. */
function typeOf(v: PyValue): PyTypeName {
  if (v === null) return "NoneType";
  if (typeof v === "string") return "str";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "float";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "list";
  if (v instanceof PyTuple) return "tuple";
  if (v instanceof Map) return "dict";
  if (v instanceof Set) return "set";
  return "object";
}

/** Python's `x in seq` (equality per element). */
function pyIn(x: PyValue, seq: PyValue): boolean {
  if (typeof seq === "string") return typeof x === "string" && seq.includes(x);
  if (isDict(seq)) return typeof x !== "object" || x === null ? dictHas(seq, x as never) : false;
  return itemsOf(seq).some((item) => pyEquals(item, x));
}

/** The elements Python iterates over for a list, tuple or string. */
function itemsOf(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (typeof v === "string") return [...v];
  if (isDict(v)) return [...v.keys()];
  throw new SpadeError("E_PARSE", `BFCL possible answer ${String(v)} is not a list`, {
    nextStep: "check the possible_answer file matches bfcl-eval 2026.3.23",
  });
}

function mapping(typeName: unknown, language: BfclLanguage = "python"): PyTypeName {
  const table: Readonly<Record<string, PyTypeName>> =
    language === "java"
      ? JAVA_TYPE_CONVERSION
      : language === "javascript"
        ? JS_TYPE_CONVERSION
        : PYTHON_TYPE_MAPPING;
  const t =
    typeof typeName === "string" && Object.hasOwn(table, typeName) ? table[typeName] : undefined;
  if (!t) {
    throw new SpadeError(
      "E_PARSE",
      `BFCL parameter type ${JSON.stringify(typeName)} is not one the checker knows`,
      {
        nextStep:
          "check the function document matches bfcl-eval 2026.3.23 (Python categories only)",
      },
    );
  }
  return t;
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

interface TypeResult extends AstVerdict {
  isVariable: boolean;
}

function typeChecker(
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

function stringChecker(value: string, possible: PyValue): AstVerdict {
  const options = itemsOf(possible)
    .filter((a): a is string => typeof a === "string")
    .map(standardizeString);
  return options.includes(standardizeString(value))
    ? { valid: true }
    : { valid: false, errorType: "value_error:string" };
}

function listChecker(value: PyValue, possible: PyValue): AstVerdict {
  const mine = itemsOf(value).map(std);
  const options = itemsOf(possible).map((answer) => itemsOf(answer).map(std));
  return options.some((o) => pyEquals(o, mine))
    ? { valid: true }
    : { valid: false, errorType: "value_error:list/tuple" };
}

function dictChecker(value: PyDict, possibles: PyValue[]): AstVerdict {
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

function listDictChecker(value: PyValue, possibles: PyValue): AstVerdict {
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

/** A function document as the single-turn data gives it (BFCL's schema dialect). */
export interface SingleFunctionDoc {
  name: string;
  parameters: {
    properties: Record<string, { type?: unknown; items?: { type?: unknown } }>;
    required?: string[];
  };
}

/** Options: `underscoreToDot` is the model config's flag (dots in names become underscores). */
export interface AstCheckOptions {
  underscoreToDot?: boolean;
  /** The functions' language; Python unless given (`astCheck` sets it from the category). */
  language?: BfclLanguage;
}

/** Upstream's `simple_function_checker` for one call against one `{name: {param: options}}` answer. */
export function simpleFunctionChecker(
  doc: SingleFunctionDoc,
  call: PyValue,
  answer: PyDict,
  opts: AstCheckOptions = {},
): AstVerdict {
  const possible = [...answer.values()][0] as PyDict;
  const details = doc.parameters.properties;
  const required = doc.parameters.required ?? [];
  const name =
    opts.underscoreToDot && doc.name.includes(".") ? doc.name.replaceAll(".", "_") : doc.name;
  if (!isDict(call) || !dictHas(call, name))
    return { valid: false, errorType: "simple_function_checker:wrong_func_name" };
  const params = dictGet(call, name) as PyDict;
  for (const p of required)
    if (!dictHas(params, p))
      return { valid: false, errorType: "simple_function_checker:missing_required" };
  for (const [param, raw] of params) {
    if (typeof param !== "string" || !(param in details) || !dictHas(possible, param)) {
      return { valid: false, errorType: "simple_function_checker:unexpected_param" };
    }
    const description = details[param]!.type;
    const language = opts.language ?? "python";
    const expected = mapping(description, language);
    let nested: PyTypeName | null = null;
    let value = raw;
    if (language === "python") {
      if (NESTED_TYPES.has(description as string)) nested = mapping(details[param]!.items?.type);
    } else {
      if (typeof value !== "string")
        return {
          valid: false,
          errorType: language === "java" ? "type_error:java" : "type_error:js",
        };
      const convert = language === "java" ? javaTypeConverter : jsTypeConverter;
      if (NESTED_CONVERSION_TYPES.has(description as string)) {
        const nestedType = details[param]!.items?.type as string;
        nested = mapping(nestedType, language);
        value = convert(value, description as string, nestedType);
      } else {
        value = convert(value, description as string);
      }
    }
    if (description === "tuple" && value instanceof PyTuple) value = [...value.items];
    if (language === "python" && description === "float" && typeof value === "bigint")
      value = Number(value);
    const options = dictGet(possible, param)!;
    const typed = typeChecker(value, options, expected, nested);
    if (!typed.valid) return { valid: false, errorType: typed.errorType };
    if (!typed.isVariable) {
      let r: AstVerdict | undefined;
      if (expected === "dict") r = dictChecker(value as PyDict, itemsOf(options));
      else if (expected === "list" && nested === "dict") r = listDictChecker(value, options);
      else if (expected === "str") r = stringChecker(value as string, options);
      else if (expected === "list") r = listChecker(value, options);
      if (r) {
        if (!r.valid) return r;
        continue;
      }
    }
    if (!pyIn(value, options)) return { valid: false, errorType: "value_error:others" };
  }
  for (const [param, options] of possible) {
    if (!dictHas(params, param) && !pyIn("", options))
      return { valid: false, errorType: "simple_function_checker:missing_optional" };
  }
  return { valid: true };
}

function findDescription(docs: SingleFunctionDoc[], name: PyValue): SingleFunctionDoc {
  const doc = docs.find((d) => d.name === name);
  if (!doc) {
    throw new SpadeError(
      "E_PARSE",
      `BFCL possible answer names ${String(name)}, which no function document defines`,
      {
        nextStep: "check the data and possible_answer files come from the same bfcl-eval release",
      },
    );
  }
  return doc;
}

/**
 * Upstream's `ast_checker`: `parallel` categories match calls in
 * any order, `multiple` ones check the single expected call, the rest need exactly one call.
 */
export function astCheck(
  docs: SingleFunctionDoc[],
  output: PyValue[],
  answers: PyDict[],
  testCategory: string,
  options: AstCheckOptions = {},
): AstVerdict {
  const opts = { ...options, language: options.language ?? languageOf(testCategory) };
  if (testCategory.includes("parallel")) {
    if (output.length !== answers.length)
      return { valid: false, errorType: "parallel_function_checker_no_order:wrong_count" };
    const matched = new Set<number>();
    for (const answer of answers) {
      const doc = findDescription(docs, [...answer.keys()][0]!);
      let found = false;
      for (let i = 0; i < output.length; i++) {
        if (matched.has(i)) continue;
        if (simpleFunctionChecker(doc, output[i]!, answer, opts).valid) {
          matched.add(i);
          found = true;
          break;
        }
      }
      if (!found)
        return { valid: false, errorType: "parallel_function_checker_no_order:cannot_find_match" };
    }
    return { valid: true };
  }
  if (testCategory.includes("multiple")) {
    if (output.length !== answers.length)
      return { valid: false, errorType: "multiple_function_checker:wrong_count" };
    return simpleFunctionChecker(
      findDescription(docs, [...answers[0]!.keys()][0]!),
      output[0]!,
      answers[0]!,
      opts,
    );
  }
  if (output.length !== 1)
    return { valid: false, errorType: "simple_function_checker:wrong_count" };
  return simpleFunctionChecker(docs[0]!, output[0]!, answers[0]!, opts);
}

/** Upstream's `is_empty_output`: no call, or one empty call, counts as no function call. */
export function isEmptyOutput(output: PyValue[]): boolean {
  return output.length === 0 || (output.length === 1 && isDict(output[0]) && output[0].size === 0);
}

/** The relevance verdict: `irrelevance` categories pass without a call, `relevance` ones with one. */
export function relevanceCheck(output: PyValue[] | null, testCategory: string): AstVerdict {
  const containsCall = output !== null && !isEmptyOutput(output);
  const success = testCategory.includes("irrelevance") ? !containsCall : containsCall;
  return success
    ? { valid: true }
    : {
        valid: false,
        errorType: testCategory.includes("irrelevance")
          ? "irrelevance_error:decoder_success"
          : "relevance_error:decoder_failed",
      };
}
