/**
 * @module eval/python/literal-tokens
 * Number and string tokens of Python and JSON source: exact ints, radix prefixes, floats,
 * adjacent string concatenation, raw strings and every escape Python or JSON allows.
 */
import type { Cursor } from "./cursor.js";

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

const RADIX_RE = /0([xXoObB])([0-9a-fA-F_]+)/y;
const NUMBER_RE = /(?:\d[\d_]*)?(?:\.(?:\d[\d_]*)?)?(?:[eE][+-]?\d[\d_]*)?/y;
const PREFIX_RE = /[rRuU](?=['"])/y;

/** An unsigned number at the cursor: an int as bigint (Python's `0x`/`0o`/`0b` too), a float as number. */
export function readNumber(c: Cursor): bigint | number {
  c.skipSpace();
  const radix = c.match(RADIX_RE);
  if (radix && c.mode === "python") {
    c.pos += radix[0].length;
    const prefix = { x: "0x", o: "0o", b: "0b" }[radix[1]!.toLowerCase() as "x" | "o" | "b"];
    try {
      return BigInt(prefix + radix[2]!.replace(/_/g, ""));
    } catch {
      return c.fail(`invalid number literal '${radix[0]}'`);
    }
  }
  const m = c.match(NUMBER_RE);
  const text = m ? m[0] : "";
  if (text === "" || text === "." || !/\d/.test(text)) c.fail("invalid number literal");
  if (/_(_|$|\.|[eE])|\._|[eE]_/.test(text)) c.fail(`invalid number literal '${text}'`);
  c.pos += text.length;
  if (/^[jJlL]/.test(c.src[c.pos] ?? "")) c.fail("complex and long literals are not supported");
  const clean = text.replace(/_/g, "");
  if (/[.eE]/.test(clean)) return Number(clean);
  if (clean.length > 1 && clean.startsWith("0") && /[1-9]/.test(clean)) {
    c.fail(`leading zeros in a decimal integer literal '${text}' are not permitted`);
  }
  return BigInt(clean);
}

/** One or more adjacent string literals, concatenated as Python does. */
export function readStrings(c: Cursor, raw = false, start = c.pos): string {
  let out = readStringLiteral(c, raw, start);
  for (;;) {
    const save = c.pos;
    const ch = c.peek();
    if (ch === "'" || ch === '"') {
      out += readStringLiteral(c, false, c.pos);
      continue;
    }
    const word = c.match(PREFIX_RE);
    if (word && c.mode === "python") {
      c.pos += 1;
      out += readStringLiteral(c, word[0].toLowerCase() === "r", c.pos - 1);
      continue;
    }
    c.pos = save;
    return out;
  }
}

function readStringLiteral(c: Cursor, raw: boolean, start: number): string {
  c.skipSpace();
  const q = c.src[c.pos]!;
  if (c.mode === "json" && q !== '"') c.fail("JSON strings use double quotes");
  const triple = c.mode === "python" && c.src.startsWith(q.repeat(3), c.pos);
  const close = triple ? q.repeat(3) : q;
  c.pos += close.length;
  let out = "";
  for (;;) {
    if (c.pos >= c.src.length) c.fail("unterminated string literal", start);
    if (c.src.startsWith(close, c.pos)) {
      c.pos += close.length;
      return out;
    }
    const ch = c.src[c.pos]!;
    if (ch === "\n" && !triple) c.fail("unterminated string literal (newline)", start);
    if (ch !== "\\") {
      out += ch;
      c.pos++;
      continue;
    }
    const esc = c.src[c.pos + 1] ?? "";
    if (raw) {
      out += ch + esc;
      c.pos += 2;
      continue;
    }
    c.pos += 2;
    out += readEscape(c, esc);
  }
}

function readEscape(c: Cursor, esc: string): string {
  if (esc === "\n") return "";
  if (c.mode === "json" && esc === "/") return "/";
  const simple = SIMPLE_ESCAPES[esc];
  if (simple !== undefined && (c.mode === "python" || !"'av".includes(esc))) return simple;
  if (esc === "x" || esc === "u" || esc === "U") {
    const width = esc === "x" ? 2 : esc === "u" ? 4 : 8;
    const digits = c.src.slice(c.pos, c.pos + width);
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) c.fail(`truncated \\${esc} escape`);
    c.pos += width;
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff) c.fail(`illegal Unicode character \\${esc}${digits}`);
    return String.fromCodePoint(cp);
  }
  if (c.mode === "python" && /[0-7]/.test(esc)) {
    let digits = esc;
    while (digits.length < 3 && /[0-7]/.test(c.src[c.pos] ?? "")) digits += c.src[c.pos++];
    return String.fromCodePoint(parseInt(digits, 8));
  }
  if (esc === "N") c.fail("\\N{...} escapes are not supported");
  if (c.mode === "json") c.fail(`invalid JSON escape \\${esc}`);
  // Python keeps unknown escapes as they are.
  return `\\${esc}`;
}
