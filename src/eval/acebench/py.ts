/**
 * @module eval/acebench/py
 * Python operations the ported ACEBench code performs on untyped values, on top of the shared
 * Python value model of `eval/`: `in`, subscripting, `.get`, `.lower()`, iteration, `max`,
 * `isinstance(x, int)` and whitespace `strip()`, each raising Python's exception and message.
 */
import { PyException, attributeError, keyError, pyGt } from "../pyops.js";
import { PyTuple, dictGet, dictSet, findKey, isPyKey, pyEquals, pyTypeName, type PyDict, type PyKey, type PyValue } from "../pyvalue.js";

/** A dict key: raises `TypeError: unhashable type` for lists, dicts and sets, as a lookup does. */
export function hashKey(v: PyValue): PyKey {
  if (isPyKey(v)) return v;
  if (v instanceof PyTuple) throw new PyException("TypeError", "tuple keys are not supported by this port");
  throw new PyException("TypeError", `unhashable type: '${pyTypeName(v)}'`);
}

/** `d.get(k, fallback)` on a dict. */
export function getOr(d: PyDict, k: PyValue, fallback: PyValue = null): PyValue {
  const v = dictGet(d, hashKey(k));
  return v === undefined ? fallback : v;
}

/** `obj.get(k, fallback)` on a value that must be a dict (else AttributeError). */
export function callGet(obj: PyValue, k: PyValue, fallback: PyValue = null): PyValue {
  if (!(obj instanceof Map)) throw attributeError(obj, "get");
  return getOr(obj, k, fallback);
}

/** Python `item in container`. */
export function contains(container: PyValue, item: PyValue): boolean {
  if (container instanceof Map || container instanceof Set) return findKey(container, hashKey(item)) !== undefined;
  if (Array.isArray(container)) return container.some((x) => pyEquals(x, item));
  if (container instanceof PyTuple) return container.items.some((x) => pyEquals(x, item));
  if (typeof container === "string") {
    if (typeof item !== "string") throw new PyException("TypeError", `'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    return container.includes(item);
  }
  throw new PyException("TypeError", `argument of type '${pyTypeName(container)}' is not iterable`);
}

/** Python `container[key]` for dicts and lists. */
export function getItem(container: PyValue, key: PyValue): PyValue {
  if (container instanceof Map) {
    const v = dictGet(container, hashKey(key));
    if (v === undefined) throw keyError(key);
    return v;
  }
  if (Array.isArray(container)) {
    if (typeof key !== "bigint" && typeof key !== "boolean") {
      throw new PyException("TypeError", `list indices must be integers or slices, not ${pyTypeName(key)}`);
    }
    const n = Number(key);
    const i = n < 0 ? container.length + n : n;
    if (i < 0 || i >= container.length) throw new PyException("IndexError", "list index out of range");
    return container[i] as PyValue;
  }
  throw new PyException("TypeError", `'${pyTypeName(container)}' object is not subscriptable`);
}

/** Python `container[key] = value` for dicts. */
export function setItem(container: PyValue, key: PyValue, value: PyValue): void {
  if (!(container instanceof Map)) throw new PyException("TypeError", `'${pyTypeName(container)}' object does not support item assignment`);
  dictSet(container, hashKey(key), value);
}

/** `s.lower()` on a value that must be a str. */
export function lower(s: PyValue): string {
  if (typeof s !== "string") throw attributeError(s, "lower");
  return s.toLowerCase();
}

/** `keyword.lower() in text.lower()`, evaluated in Python's order (the keyword first). */
export function lowerIn(keyword: PyValue, text: PyValue): boolean {
  const k = lower(keyword);
  return lower(text).includes(k);
}

/** The items `for x in v` visits. */
export function iterate(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (v instanceof Map || v instanceof Set) return [...v.keys()];
  if (typeof v === "string") return [...v];
  throw new PyException("TypeError", `'${pyTypeName(v)}' object is not iterable`);
}

/** Python `max(a, b)`: `a` unless `b > a`. */
export function max2(a: PyValue, b: PyValue): PyValue {
  return pyGt(b, a) ? b : a;
}

/** `isinstance(v, int)` (True for bools, as in Python). */
export function isIntLike(v: PyValue): boolean {
  return typeof v === "bigint" || typeof v === "boolean";
}

const PY_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** Python's `s.strip()` (Python's whitespace set, which differs from JavaScript's `trim`). */
export function pyStripWhitespace(s: string): string {
  let i = 0;
  let j = s.length;
  while (i < j && PY_WHITESPACE.includes(s[i] as string)) i++;
  while (j > i && PY_WHITESPACE.includes(s[j - 1] as string)) j--;
  return s.slice(i, j);
}

/** Python's `s.strip(chars)` for single-unit characters. */
export function stripChars(s: string, chars: string): string {
  let i = 0;
  let j = s.length;
  while (i < j && chars.includes(s[i] as string)) i++;
  while (j > i && chars.includes(s[j - 1] as string)) j--;
  return s.slice(i, j);
}

/** `{"status": status, "message": message}`, the answer most phone methods give. */
export function statusMessage(status: boolean, message: string): PyDict {
  return new Map<PyKey, PyValue>([
    ["status", status],
    ["message", message],
  ]);
}
