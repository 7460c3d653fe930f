/**
 * @module eval/bfcl/single/js-types
 * bfcl-eval 2026.3.23's `js_type_converter`: a JavaScript-category argument (always a string in
 * the model's output) turned into the Python value the AST checker compares, regexes and all.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";

/** \s as JavaScript's regexes read it, and the line terminators `.` does not match. */
const SPACE = /\s/;
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * What upstream's nested-array pattern
 * `^(?:\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\))`
 * matches at the start of `code`, or null. As a regex it is exponential: each `.*?` may swallow
 * `],[`, so a long list that does not close is split every possible way (30 elements: seconds).
 * Here the same search runs once per position, right to left, in the regex's order of trial:
 * after an element's `]` and spaces, another `, [element` first, then the closing `]` (or `)`);
 * an element ends at its first `]` on the line from which the rest succeeds.
 */
function nestedArrayPrefix(code: string): string | null {
  let at: number;
  let close: string;
  const call = /^new\s+Array\(\s*\[/.exec(code);
  if (call) {
    at = call[0].length;
    close = ")";
  } else {
    const list = /^\[\s*\[/.exec(code);
    if (!list) return null;
    at = list[0].length;
    close = "]";
  }
  const n = code.length;
  // nonSpace[i]: the first index >= i that is not \s; after[p]: where a match ends from just
  // after an element's spaces at p; element[q]: from just inside an element's `[` at q (-1: fails).
  const nonSpace = new Int32Array(n + 2);
  const after = new Int32Array(n + 2).fill(-1);
  const element = new Int32Array(n + 2).fill(-1);
  nonSpace[n] = n;
  nonSpace[n + 1] = n + 1;
  for (let i = n - 1; i >= 0; i--)
    nonSpace[i] = SPACE.test(code[i] as string) ? nonSpace[i + 1]! : i;
  for (let i = n - 1; i >= 0; i--) {
    const ch = code[i] as string;
    if (ch === ",") {
      const open = nonSpace[i + 1]!;
      if (code[open] === "[") after[i] = element[open + 1]!;
    }
    if (after[i] === -1 && ch === close) after[i] = i + 1;
    if (ch === "]") {
      const rest = after[nonSpace[i + 1]!]!;
      element[i] = rest !== -1 ? rest : element[i + 1]!;
    } else if (!LINE_END.test(ch)) element[i] = element[i + 1]!;
  }
  const end = element[at]!;
  return end === -1 ? null : code.slice(0, end);
}

/**
 * The matches of upstream's pair pattern `([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)` over an object
 * body, without its two quadratic retries: with no colon left the search rescans to the end from
 * every start, so it stops when no pair can follow; and `\s*(?=[^,]+:)` retries the lookahead
 * from every space after a comma, so it is said as two alternatives that try each once
 * (`\s*(?=\s:)`: the last space is kept when a colon is next). The same matches.
 */
function objectPairs(body: string): RegExpExecArray[] {
  const pair = /([^:]+):\s*(.*?)(?:,(?:\s*(?=[^\s,][^,]*:)|\s*(?=\s:))|$)/g;
  const lastColon = body.lastIndexOf(":");
  const pairs: RegExpExecArray[] = [];
  for (;;) {
    // A pair needs a character other than a colon before a colon.
    let first = pair.lastIndex;
    while (body[first] === ":") first++;
    const m = first < lastColon ? pair.exec(body) : null;
    if (m === null) return pairs;
    pairs.push(m);
  }
}

/** bfcl-eval's `JS_TYPE_CONVERSION`: JavaScript type name -> Python type name. */
export const JS_TYPE_CONVERSION: Readonly<
  Record<string, "str" | "int" | "float" | "bool" | "dict" | "list">
> = {
  String: "str",
  integer: "int",
  float: "float",
  Bigint: "int",
  Boolean: "bool",
  dict: "dict",
  array: "list",
  any: "str",
};

const quoted = (s: string): boolean =>
  (s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"));

/** Upstream's `js_type_converter`; an unknown type throws as upstream's ValueError does. */
export function jsTypeConverter(value: string, expected: string, nested?: string): PyValue {
  if (!(expected in JS_TYPE_CONVERSION))
    throw new py.PyException("ValueError", `Unsupported type: ${expected}`);
  switch (expected) {
    case "String":
      return quoted(value) ? value.slice(1, -1) : value;
    case "integer":
      return /^-?\d+$/.test(value) ? py.pyInt(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?$/.test(value) ? py.pyFloat(value) : value;
    case "Bigint":
      return /^-?\d+n$/.test(value) ? py.pyInt(value.slice(0, -1)) : value;
    case "Boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "dict":
      return parseJsCollection(value, "dict", nested);
    case "array":
      return parseJsCollection(value, "array", nested);
    default:
      return value;
  }
}

function parseJsCollection(raw: string, kind: "dict" | "array", nested?: string): PyValue {
  const code = py.stripWhitespace(raw);
  if (kind === "array") {
    try {
      const m2 = nestedArrayPrefix(code);
      if (m2 !== null) {
        return [...m2.matchAll(/\[(.*?)\]/g)].map((m, idx) => {
          let inner = py.stripWhitespace(m[1]!);
          if (idx === 0 && inner.startsWith("[")) inner = inner.slice(1);
          return inner.split(",").map((e) => parseJsValue(py.stripWhitespace(e)));
        });
      }
      const m = /^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))/.exec(code);
      if (!m) return code;
      const body = m[1] ?? m[2];
      const elements =
        body === undefined || py.stripWhitespace(body) === ""
          ? []
          : py.stripWhitespace(body).split(",");
      if (nested)
        return elements.map((e) =>
          /^["']/.test(py.stripWhitespace(e))
            ? jsTypeConverter(py.stripWhitespace(e), nested, "String")
            : jsTypeConverter(py.stripWhitespace(e), nested),
        );
      return elements.map((e) => parseJsValue(py.stripWhitespace(e)));
    } catch {
      return code;
    }
  }
  if (code === "{}") return new Map();
  const dm = /^\{(.*?)\}/.exec(code);
  if (!dm) return code;
  try {
    const out: PyDict = new Map();
    for (const [, k, v] of objectPairs(dm[1]!)) {
      const key = py.strip(py.stripWhitespace(k!), "'\"");
      const value = py.stripWhitespace(v!);
      if (value.startsWith("[") && value.endsWith("]"))
        out.set(key, parseJsCollection(value, "array"));
      else if (value.startsWith("{") && value.endsWith("}"))
        out.set(key, parseJsCollection(value, "dict"));
      else out.set(key, parseJsValue(py.strip(value, "'\"")));
    }
    return out;
  } catch {
    return code;
  }
}

/** Upstream's `parse_js_value`: true/false, a quoted string, an int, a float, else the text. */
export function parseJsValue(raw: string): PyValue {
  const s = py.stripWhitespace(raw);
  if (s === "true") return true;
  if (s === "false") return false;
  if (quoted(s)) return s.slice(1, -1);
  return py.intFloatOrStr(s);
}
