/**
 * @module eval/bfcl/single/type-mapping
 * The Python types BFCL's AST checker compares: a parameter's schema type per language (Python,
 * Java, JavaScript) as a Python type name, and `type(v)` of a decoded value.
 */
import { SpadeError } from "../../../errors.js";
import { JAVA_TYPE_CONVERSION } from "./java-types.js";
import { JS_TYPE_CONVERSION } from "./js-types.js";
import { PyTuple, type PyValue } from "../../python/index.js";

/** Python type names the checker compares with `type(x) == T`. */
export type PyTypeName =
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

/** `type(v)` as a name. */
export function typeOf(v: PyValue): PyTypeName {
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

/**
 * The Python type a schema type names in `language`'s table (`PYTHON_TYPE_MAPPING`,
 * `JAVA_TYPE_CONVERSION` or `JS_TYPE_CONVERSION`); an unknown type throws E_PARSE.
 */
export function mapping(typeName: unknown, language: BfclLanguage = "python"): PyTypeName {
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
