/**
 * @module eval/python/str
 * Python's `str` methods where JavaScript's differ: `splitlines`, whitespace `split`,
 * `strip(chars)`, `sorted` order, UTF-8 length and `str.format` with named fields.
 */
import { compareCodePoints, keyError } from "./ops.js";
import type { PyValue } from "./value.js";
import { pyStr } from "./format.js";

// The line boundaries of str.splitlines(); "\r\n" counts as one.
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
const LINE_BREAK_G = new RegExp(LINE_BREAK.source, "g");
// The characters str.split() with no argument splits on (Py_UNICODE_ISSPACE).
const WHITESPACE_RUN =
  /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** Python's `s.splitlines()`: no trailing empty line, every Unicode line boundary. */
export function splitlines(s: string): string[] {
  if (s === "") return [];
  const parts = s.split(LINE_BREAK_G);
  if (LINE_BREAK.test(s.slice(-1)) || s.endsWith("\r\n")) parts.pop();
  return parts;
}

/** Python's `s.split()` with no separator: runs of whitespace, no empty strings. */
export function splitWhitespace(s: string): string[] {
  return s.split(WHITESPACE_RUN).filter((p) => p !== "");
}

/** Python's `s.split(sep)` with a non-empty separator. */
export function splitOn(s: string, sep: string): string[] {
  return s.split(sep);
}

function charSet(chars: string): Set<string> {
  return new Set(Array.from(chars));
}

const WHITESPACE_START = new RegExp(`^${WHITESPACE_RUN.source}`);
// The lookbehind lets only a run's first character start a match: unanchored `run$` would be
// retried from every character of a long inner run (quadratic). Same result.
const WHITESPACE_END = new RegExp(
  `(?<!${WHITESPACE_RUN.source.slice(0, -1)})${WHITESPACE_RUN.source}$`,
);

/** Python's `s.strip()`: Python's whitespace set, which differs from JavaScript's `trim`. */
export function stripWhitespace(s: string): string {
  return s.replace(WHITESPACE_START, "").replace(WHITESPACE_END, "");
}

/** Python's `s.lstrip(chars)`. */
export function lstrip(s: string, chars: string): string {
  const set = charSet(chars);
  const cps = Array.from(s);
  let i = 0;
  while (i < cps.length && set.has(cps[i]!)) i++;
  return cps.slice(i).join("");
}

/** Python's `s.rstrip(chars)`. */
export function rstrip(s: string, chars: string): string {
  const set = charSet(chars);
  const cps = Array.from(s);
  let j = cps.length;
  while (j > 0 && set.has(cps[j - 1]!)) j--;
  return cps.slice(0, j).join("");
}

/** Python's `s.strip(chars)`. */
export function strip(s: string, chars: string): string {
  return lstrip(rstrip(s, chars), chars);
}

/** Python's `sorted()` of strings: by code point, stable. */
export function sortedStrings(items: readonly string[]): string[] {
  return [...items].sort(compareCodePoints);
}

/** Length in bytes of `s` encoded as UTF-8 (lone surrogates raise in Python; counted as 3 here). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/**
 * Python's `template.format(**fields)` for named fields only: `{{`/`}}` escape braces, a
 * missing field raises KeyError, as in the long-context order details.
 */
export function formatNamed(template: string, fields: Record<string, PyValue>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (whole, name: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    const key = name ?? "";
    if (!(key in fields)) throw keyError(key);
    return pyStr(fields[key]!);
  });
}
