/**
 * @module eval/bfcl/single/ast-checker
 * BFCL's single-turn AST checker (bfcl-eval 2026.3.23 `ast_checker.py`): a model's decoded calls
 * against the possible answers, verdict and error type; Java and JavaScript arguments go through
 * upstream's type converters first.
 */
import { SpadeError } from "../../../errors.js";
import { javaTypeConverter } from "./java-types.js";
import { jsTypeConverter } from "./js-types.js";
import { type BfclLanguage, languageOf, mapping, type PyTypeName } from "./type-mapping.js";
import {
  dictChecker,
  itemsOf,
  listChecker,
  listDictChecker,
  pyIn,
  stringChecker,
  typeChecker,
} from "./value-checkers.js";
import {
  dictGet,
  dictHas,
  isDict,
  type PyDict,
  PyTuple,
  type PyValue,
} from "../../python/index.js";

export { type BfclLanguage, languageOf, PYTHON_TYPE_MAPPING } from "./type-mapping.js";
export { standardizeString } from "./value-checkers.js";
export { isEmptyOutput, relevanceCheck } from "./relevance.js";

/** A checker verdict: `errorType` is upstream's string (e.g. "value_error:string") when invalid. */
export interface AstVerdict {
  valid: boolean;
  errorType?: string;
}

/** One decoded call: `{function_name: {param: value}}` (a dict with one key, as upstream decodes). */
export type DecodedCall = PyDict;

const NESTED_CONVERSION_TYPES = new Set(["Array", "ArrayList", "array"]);

const NESTED_TYPES = new Set(["array", "tuple"]);

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
