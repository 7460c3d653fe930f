/**
 * @module eval/python/format
 * Python's text forms of values: `repr()`, `str()` and `json.dumps()` with its default
 * separators and `ensure_ascii=True`. Benchmark results are compared as these exact strings.
 */
import { floatRepr } from "./float.js";
import { isPyKey, PyObject, PyTuple, type PyKey, type PyValue } from "./value.js";

/** Thrown by `pyJsonDumps` where Python's `json.dumps` raises `TypeError`. */
export class PyJsonTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PyJsonTypeError";
  }
}

const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** Python's `repr()` of a str: quote choice, escapes and non-printable characters as CPython. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f) out += ch;
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

/** How one of Python's text forms spells the primitives (an int is its digits in every form). */
interface Spelling {
  readonly none: string;
  readonly true: string;
  readonly false: string;
  float(x: number): string;
  str(s: string): string;
}

/** A primitive (the values that can be dict keys) as `spelling` writes it. */
function primitiveText(k: PyKey, spelling: Spelling): string {
  if (k === null) return spelling.none;
  switch (typeof k) {
    case "boolean":
      return k ? spelling.true : spelling.false;
    case "bigint":
      return k.toString();
    case "number":
      return spelling.float(k);
    case "string":
      return spelling.str(k);
  }
}

const REPR: Spelling = {
  none: "None",
  true: "True",
  false: "False",
  float: floatRepr,
  str: strRepr,
};

/** Python's `repr()` of any value. Sets print in insertion order (CPython's hash order is not modelled). */
export function pyRepr(v: PyValue): string {
  if (isPyKey(v)) return primitiveText(v, REPR);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (v instanceof PyTuple) {
    if (v.items.length === 1) return `(${pyRepr(v.items[0]!)},)`;
    return `(${v.items.map(pyRepr).join(", ")})`;
  }
  if (v instanceof Map) {
    return `{${[...v].map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  }
  if (v instanceof Set) return v.size === 0 ? "set()" : `{${[...v].map(pyRepr).join(", ")}}`;
  return v.pyRepr();
}

/** Python's `str()`: a str as is, objects by their `__str__`, everything else as `repr()`. */
export function pyStr(v: PyValue): string {
  if (typeof v === "string") return v;
  if (v instanceof PyObject) return v.pyStr();
  return pyRepr(v);
}

/** A JSON string literal as `json.dumps` writes it with `ensure_ascii=True`. */
export function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    // UTF-16 code units are exactly the \uXXXX escapes Python writes (surrogate pairs included).
    else if (c < 0x20 || c > 0x7e) out += `\\u${hex(c, 4)}`;
    else out += ch;
  }
  return out + '"';
}

function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return floatRepr(x);
}

const JSON_SPELLING: Spelling = {
  none: "null",
  true: "true",
  false: "false",
  float: jsonFloat,
  str: jsonString,
};

/** A dict key as `json.dumps` turns it into a str before quoting it. */
function jsonKeyText(k: PyKey): string {
  return typeof k === "string" ? k : primitiveText(k, JSON_SPELLING);
}

/**
 * Python's `json.dumps(v)` with default arguments. Throws `PyJsonTypeError` (Python's message)
 * for values JSON cannot hold: sets, objects, non-primitive dict keys.
 */
export function pyJsonDumps(v: PyValue): string {
  if (isPyKey(v)) return primitiveText(v, JSON_SPELLING);
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(", ")}]`;
  if (v instanceof PyTuple) return `[${v.items.map(pyJsonDumps).join(", ")}]`;
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${jsonString(jsonKeyText(k))}: ${pyJsonDumps(x)}`);
    return `{${parts.join(", ")}}`;
  }
  const typeName = v instanceof Set ? "set" : v.pyTypeName;
  throw new PyJsonTypeError(`Object of type ${typeName} is not JSON serializable`);
}
