/**
 * @module eval/bfcl/single/java-types
 * bfcl-eval 2026.3.23's `java_type_converter`: a Java-category argument (always a string in the
 * model's output) turned into the Python value the AST checker compares, regexes and all.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";

/** bfcl-eval's `JAVA_TYPE_CONVERSION`: Java type name -> Python type name. */
export const JAVA_TYPE_CONVERSION: Readonly<
  Record<string, "str" | "int" | "float" | "bool" | "dict" | "list" | "set">
> = {
  byte: "int",
  short: "int",
  integer: "int",
  float: "float",
  double: "float",
  long: "int",
  boolean: "bool",
  char: "str",
  Array: "list",
  ArrayList: "list",
  Set: "set",
  HashMap: "dict",
  Hashtable: "dict",
  Queue: "list",
  Stack: "list",
  String: "str",
  any: "str",
};

const notImplemented = (what: string) =>
  new py.PyException("NotImplementedError", `${what} conversion is not implemented`);

/** Upstream's `java_type_converter`; Set, Hashtable, Queue and Stack throw as upstream does. */
export function javaTypeConverter(value: string, expected: string, nested?: string): PyValue {
  if (!(expected in JAVA_TYPE_CONVERSION))
    throw new py.PyException("ValueError", `Unsupported type: ${expected}`);
  switch (expected) {
    case "byte":
    case "short":
    case "integer":
      return /^-?\d+$/.test(value) ? py.pyInt(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(value)
        ? py.pyFloat(value.slice(0, -1))
        : value;
    case "double":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value) ? py.pyFloat(value) : value;
    case "long":
      return /^-?\d+[lL]$/.test(value) ? py.pyInt(value.slice(0, -1)) : value;
    case "boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "Array":
      return parseArray(value, nested);
    case "ArrayList":
      return parseArrayList(value, nested);
    case "HashMap":
      return parseHashMap(value);
    case "Set":
    case "Hashtable":
      throw notImplemented("Set");
    case "Queue":
    case "Stack":
      throw notImplemented(expected);
    default:
      // String, any, and char (upstream's char pattern can never match, so it stays the text).
      return value;
  }
}

function element(text: string, nested?: string): PyValue {
  const s = py.stripWhitespace(text);
  if (nested === "char" || nested === "String") return s.slice(1, -1);
  return nested ? javaTypeConverter(s, nested) : parseJavaValue(s);
}

/**
 * Group 1 of upstream's `new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}` (dotAll) in `input`, or
 * null. As a regex it is cubic or worse in spaces after the `{{` with no `}}` (8K of them: six
 * minutes). Its own choice, found directly: after the first such opening and its spaces, the text
 * up to the next `}}` (at least one character), its trailing spaces left out; with no `}}` there,
 * the last space alone when `}}` follows the spaces at once. A later opening sees no more `}}`.
 */
function doubleBraceBody(input: string): string | null {
  const open = /new\s+ArrayList<\w*>\(\)\s*\{\{/.exec(input);
  if (!open) return null;
  const space = /\s/;
  const first = open.index + open[0].length;
  let from = first;
  while (from < input.length && space.test(input[from] as string)) from++;
  const close = input.indexOf("}}", from + 1);
  if (close === -1) return from > first && input.startsWith("}}", from) ? input[from - 1]! : null;
  let end = close;
  while (end > from + 1 && space.test(input[end - 1] as string)) end--;
  return input.slice(from, end);
}

/**
 * Group 1 of each match of upstream's `/add\((.+?)\)/g`. A start with no `)` after it on its line
 * means none for any later start on that line, so the search skips to the next line instead of
 * retrying from every later `add(` (quadratic).
 */
function addArguments(body: string): string[] {
  const add = /add\((.+?)\)/y;
  const lineEnd = /[\n\r\u2028\u2029]/g;
  const args: string[] = [];
  for (let at = body.indexOf("add("); at !== -1; ) {
    add.lastIndex = at;
    const m = add.exec(body);
    let next = add.lastIndex;
    if (m) args.push(m[1]!);
    else {
      lineEnd.lastIndex = at;
      if (!lineEnd.exec(body)) break;
      next = lineEnd.lastIndex;
    }
    at = body.indexOf("add(", next);
  }
  return args;
}

/**
 * The body of the first match of upstream's patterns `head` + a lazy one-line body (`.*?` or,
 * with `minBody` 1, `.+?`) + an end (`ends(i)`: the end starts at `i`), with `head` a sticky
 * regex tried at every `new`; null when none matches. The regex rescans every start's body to
 * the line's end (quadratic); here a start whose body finds no end rules out every later start
 * whose body begins on the same line, as it could only try fewer ends.
 */
function firstLineMatch(
  input: string,
  head: RegExp,
  minBody: 0 | 1,
  ends: (i: number) => boolean,
): string | null {
  const lineEnd = /[\n\r\u2028\u2029]/;
  let deadUpTo = -1;
  for (let at = input.indexOf("new"); at !== -1; at = input.indexOf("new", at + 1)) {
    head.lastIndex = at;
    if (!head.exec(input)) continue;
    const from = head.lastIndex;
    if (from <= deadUpTo) continue;
    for (let i = from; ; i++) {
      if (i - from >= minBody && ends(i)) return input.slice(from, i);
      if (i >= input.length || lineEnd.test(input[i] as string)) {
        deadUpTo = i;
        break;
      }
    }
  }
  return null;
}

function parseArrayList(input: string, nested?: string): PyValue {
  const asList = firstLineMatch(input, /new\s+ArrayList<\w*>\(Arrays\.asList\(/y, 1, (i) =>
    input.startsWith("))", i),
  );
  if (asList !== null) return asList.split(",").map((e) => element(e, nested));
  const adds = doubleBraceBody(input);
  if (adds !== null) return addArguments(adds).map((a) => element(a, nested));
  if (/new\s+ArrayList<\w*>\(\)/.test(input)) return [];
  return input;
}

function parseArray(input: string, nested?: string): PyValue {
  const body = firstLineMatch(input, /new\s+\w+\[\]\s*\{/y, 0, (i) => input[i] === "}");
  if (body === null) return input;
  const parts = body.split(",").filter((x) => py.stripWhitespace(x) !== "");
  return parts.map((x) =>
    nested
      ? javaTypeConverter(py.stripWhitespace(x), nested)
      : parseJavaValue(py.stripWhitespace(x)),
  );
}

/**
 * Group 1 of upstream's `new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}` (dotAll) in
 * `input`, or null. As a regex it is polynomial of high degree (spaces after the `{` and no `}`:
 * 256 of them took 20 s), as every way to split the spaces is retried. The regex's own choice,
 * found directly: the first `new HashMap<` (a later one can only find fewer `>` after it), its
 * first `>` followed by `()` and `{`, one optional inner `{` with the spaces around it, and the
 * text up to the next `}`, its trailing spaces left out.
 */
function hashMapBody(input: string): string | null {
  const start = /new\s+HashMap</.exec(input);
  if (!start) return null;
  const space = /\s/;
  const skipSpace = (i: number) => {
    while (i < input.length && space.test(input[i] as string)) i++;
    return i;
  };
  const head = /\s*\(\)\s*\{/y;
  for (let r = input.indexOf(">", start.index + start[0].length); r !== -1; ) {
    head.lastIndex = r + 1;
    if (head.exec(input)) {
      let from = skipSpace(head.lastIndex);
      if (input[from] === "{") from = skipSpace(from + 1);
      // No `}` after this `>`'s body means none after any later `>`'s.
      const close = input.indexOf("}", from);
      if (close === -1) return null;
      let end = close;
      while (end > from && space.test(input[end - 1] as string)) end--;
      return input.slice(from, end);
    }
    r = input.indexOf(">", r + 1);
  }
  return null;
}

/**
 * Groups 1 and 2 of each match of upstream's `/put\("(.*?)",\s*(.*?)\)/g`. As a regex it is cubic
 * where no `)` follows (every key end, every split of the spaces, every value end is retried).
 * Its own choice, found directly: the key ends at the first `",` on its line after which, past
 * the spaces, a `)` is on the same line; the value runs to that `)`. A start with no such key end
 * leaves none for any later start on its line, so the search goes on at the next line.
 */
function putPairs(body: string): Array<[string, string]> {
  const lineEnd = /[\n\r\u2028\u2029]/g;
  const isLineEnd = (ch: string) => /[\n\r\u2028\u2029]/.test(ch);
  // nextParen[i]: the first `)` at or after i on i's line, or -1.
  const nextParen = new Int32Array(body.length + 1).fill(-1);
  for (let i = body.length - 1; i >= 0; i--) {
    const ch = body[i] as string;
    if (ch === ")") nextParen[i] = i;
    else if (!isLineEnd(ch)) nextParen[i] = nextParen[i + 1]!;
  }
  const space = /\s/;
  const pairs: Array<[string, string]> = [];
  let at = body.indexOf('put("');
  while (at !== -1) {
    const keyStart = at + 5;
    let next = -1;
    for (let q = keyStart; q < body.length && !isLineEnd(body[q] as string); q++) {
      if (body[q] !== '"' || body[q + 1] !== ",") continue;
      let value = q + 2;
      while (value < body.length && space.test(body[value] as string)) value++;
      const close = nextParen[value]!;
      if (close === -1) continue;
      pairs.push([body.slice(keyStart, q), body.slice(value, close)]);
      next = close + 1;
      break;
    }
    if (next === -1) {
      lineEnd.lastIndex = at;
      if (!lineEnd.exec(body)) break;
      next = lineEnd.lastIndex;
    }
    at = body.indexOf('put("', next);
  }
  return pairs;
}

function parseHashMap(input: string): PyValue {
  const body = hashMapBody(input);
  if (body !== null) {
    const out: PyDict = new Map();
    if (py.stripWhitespace(body) !== "")
      for (const [key, value] of putPairs(body))
        out.set(key, parseJavaValue(py.stripWhitespace(value)));
    return out;
  }
  const emptyCall = /\s*\(\)/y;
  const closesCall = (i: number) => {
    emptyCall.lastIndex = i + 1;
    return input[i] === ">" && emptyCall.test(input);
  };
  if (firstLineMatch(input, /new\s+HashMap</y, 0, closesCall) !== null) return new Map();
  return input;
}

/** Upstream's `parse_java_value`: booleans, "strings", 1L, 1.5f, an int, a float, else the text. */
export function parseJavaValue(s: string): PyValue {
  if (s === "true") return true;
  if (s === "false") return false;
  if (s.startsWith('"') && s.endsWith('"')) return s.slice(1, -1);
  if (/^-?\d+[lL]$/.test(s)) return py.pyInt(s.slice(0, -1));
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(s)) return py.pyFloat(s.slice(0, -1));
  return py.intFloatOrStr(s);
}
