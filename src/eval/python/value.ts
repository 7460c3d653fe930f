/**
 * @module eval/python/value
 * Python values as TypeScript sees them: `int` is a bigint and `float` a number (so the two never
 * mix silently), `dict` a Map, `set` a Set, `tuple` a PyTuple; plus Python's equality and a
 * conversion to plain JSON.
 */
import { SpadeError } from "../../errors.js";
import type { Json } from "../../env/types.js";

/** A hashable Python value that can key a dict or sit in a set. */
export type PyKey = string | bigint | number | boolean | null;

/** Any Python value a benchmark call or API state can hold. */
export type PyValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | PyValue[]
  | PyTuple
  | PyDict
  | PySet
  | PyObject;

/** A Python `dict` (insertion-ordered, like Python's). */
export type PyDict = Map<PyKey, PyValue>;

/** A Python `set` of hashable values. */
export type PySet = Set<PyKey>;

/** A Python `tuple`. */
export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

/**
 * A Python object with its own `repr` (a directory, an mpmath number, `Ellipsis`...).
 * `json.dumps` cannot serialise it, so results holding one fall back to `str()`.
 */
export abstract class PyObject {
  /** Python's class name, for error messages. */
  abstract readonly pyTypeName: string;
  /** What Python's `repr()` prints. */
  abstract pyRepr(): string;
  /** What Python's `str()` prints; `repr` unless the class says otherwise. */
  pyStr(): string {
    return this.pyRepr();
  }
  /** Python's `==` against another value; identity unless the class defines `__eq__`. */
  pyEquals(other: PyValue): boolean {
    return this === other;
  }
}

/** Python's `Ellipsis` (`...`), which appears once in the long-context data. */
class PyEllipsisType extends PyObject {
  readonly pyTypeName = "ellipsis";
  pyRepr(): string {
    return "Ellipsis";
  }
}

/** The one `Ellipsis` object. */
export const PY_ELLIPSIS: PyObject = new PyEllipsisType();

/** True for a Python dict. */
export function isDict(v: PyValue | undefined): v is PyDict {
  return v instanceof Map;
}

/** True for a Python list. */
export function isList(v: PyValue | undefined): v is PyValue[] {
  return Array.isArray(v);
}

/** True for a Python int (bool is not counted, unlike Python's isinstance). */
export function isInt(v: PyValue | undefined): v is bigint {
  return typeof v === "bigint";
}

/** True for a Python float. */
export function isFloat(v: PyValue | undefined): v is number {
  return typeof v === "number";
}

/** Python's `type(v).__name__`. */
export function pyTypeName(v: PyValue): string {
  if (v === null) return "NoneType";
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "float";
    case "string":
      return "str";
  }
  if (Array.isArray(v)) return "list";
  if (v instanceof PyTuple) return "tuple";
  if (v instanceof Map) return "dict";
  if (v instanceof Set) return "set";
  return v.pyTypeName;
}

/** Builds a dict from string-keyed entries. */
export function pyDict(entries: Record<string, PyValue> | Array<[PyKey, PyValue]>): PyDict {
  return new Map(Array.isArray(entries) ? entries : Object.entries(entries));
}

/** True when `v` is usable as a dict key or set member in this model. */
export function isPyKey(v: PyValue): v is PyKey {
  return v === null || typeof v !== "object";
}

/** Numeric view of bool/int/float for cross-type comparison, or undefined. */
function numericOf(v: PyValue): bigint | number | undefined {
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "bigint" || typeof v === "number") return v;
  return undefined;
}

/** Python `==` on two numbers of any numeric type (exact, as CPython compares int and float). */
function numEquals(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === "bigint" && typeof b === "bigint") return a === b;
  if (typeof a === "number" && typeof b === "number") return a === b;
  const f = (typeof a === "number" ? a : b) as number;
  const i = (typeof a === "bigint" ? a : b) as bigint;
  return Number.isInteger(f) && BigInt(f) === i;
}

/** The key already in `d` that equals `key` under Python rules (1 == 1.0 == True), if any. */
export function findKey(d: PyDict | PySet, key: PyKey): PyKey | undefined {
  if (d.has(key)) return key;
  const num = numericOf(key);
  if (num === undefined) return undefined;
  for (const k of d.keys()) {
    const kn = numericOf(k);
    if (kn !== undefined && numEquals(kn, num)) return k;
  }
  return undefined;
}

/** `key in d` with Python's key equality. */
export function dictHas(d: PyDict | PySet, key: PyKey): boolean {
  return findKey(d, key) !== undefined;
}

/** `d.get(key)` with Python's key equality; undefined when absent. */
export function dictGet(d: PyDict, key: PyKey): PyValue | undefined {
  const k = findKey(d, key);
  return k === undefined ? undefined : d.get(k);
}

/** `d[key] = value`, keeping the existing key object when an equal one is present (as Python does). */
export function dictSet(d: PyDict, key: PyKey, value: PyValue): void {
  const k = findKey(d, key);
  d.set(k === undefined ? key : k, value);
}

/** `del d[key]`; returns false when the key was absent. */
export function dictDelete(d: PyDict, key: PyKey): boolean {
  const k = findKey(d, key);
  return k === undefined ? false : d.delete(k);
}

/** Python's `a == b`. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  const na = numericOf(a);
  const nb = numericOf(b);
  if (na !== undefined || nb !== undefined) {
    return na !== undefined && nb !== undefined && numEquals(na, nb);
  }
  if (a === null || b === null || typeof a === "string" || typeof b === "string") return false;
  if (a instanceof PyObject) return a.pyEquals(b);
  if (b instanceof PyObject) return b.pyEquals(a);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && seqEquals(a, b);
  }
  if (a instanceof PyTuple || b instanceof PyTuple) {
    return a instanceof PyTuple && b instanceof PyTuple && seqEquals(a.items, b.items);
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      const bk = findKey(b, k);
      if (bk === undefined || !pyEquals(v, b.get(bk)!)) return false;
    }
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const k of a) if (!dictHas(b, k)) return false;
    return true;
  }
  return false;
}

function seqEquals(a: readonly PyValue[], b: readonly PyValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!pyEquals(a[i]!, b[i]!)) return false;
  return true;
}

/** Python's `copy.deepcopy` for plain values (objects are shared: they are immutable here). */
export function deepCopy<T extends PyValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => deepCopy(x)) as T;
  if (v instanceof Map) {
    const out: PyDict = new Map();
    for (const [k, x] of v as PyDict) out.set(k, deepCopy(x));
    return out as T;
  }
  if (v instanceof Set) return new Set(v) as T;
  if (v instanceof PyTuple) return new PyTuple(v.items.map((x) => deepCopy(x))) as T;
  return v;
}

/**
 * Plain JSON for a Python value: int -> number (throws E_PARSE beyond 2^53 rather than lose
 * digits), tuple and set -> array, dict keys -> strings as `json.dumps` writes them.
 */
export function toJson(v: PyValue): Json {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) {
      throw new SpadeError("E_PARSE", `integer ${v} does not fit a JSON number exactly`, {
        nextStep: "read the PyValue (bigint) directly instead of converting to JSON",
      });
    }
    return n;
  }
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new SpadeError("E_PARSE", `float ${v} has no JSON form`);
    return v;
  }
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof PyTuple) return v.items.map(toJson);
  if (v instanceof Set) return [...v].map(toJson);
  if (v instanceof Map) {
    const out: { [key: string]: Json } = {};
    for (const [k, x] of v) out[jsonKey(k)] = toJson(x);
    return out;
  }
  throw new SpadeError("E_PARSE", `a Python ${v.pyTypeName} has no JSON form`);
}

/** The string `json.dumps` writes for a dict key. */
export function jsonKey(k: PyKey): string {
  if (k === null) return "null";
  if (typeof k === "boolean") return k ? "true" : "false";
  if (typeof k === "string") return k;
  if (typeof k === "bigint") return k.toString();
  return String(k);
}

/**
 * A Python value from plain JSON (as `json.loads` would give, except that integral numbers
 * become int: JSON text already parsed by JavaScript no longer says `1` from `1.0`).
 */
export function fromJson(v: Json): PyValue {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(fromJson);
  const out: PyDict = new Map();
  for (const [k, x] of Object.entries(v)) out.set(k, fromJson(x));
  return out;
}
