/**
 * @module eval/python/idioms
 * The Python idioms ported benchmark code performs on untyped values (`x in c`, `c[k]`,
 * `d.get(k, default)`, `for x in v`, `lst.append`, `s.lower()`...), each raising Python's
 * exception and message. One definition per name for every port (BFCL classes, ACEBench APIs).
 */
import { PyException, attributeError, keyError, pyFloat, pyGt, pyInt, typeError } from "./ops.js";
import {
  PyTuple,
  dictGet,
  dictSet,
  findKey,
  isPyKey,
  pyEquals,
  pyTypeName,
  type PyDict,
  type PyKey,
  type PyValue,
} from "./value.js";

/** A value used as a dict key or in `in dict`: `TypeError: unhashable type` for lists, dicts and sets. */
export function hashKey(v: PyValue): PyKey {
  if (isPyKey(v)) return v;
  if (v instanceof PyTuple) throw typeError("tuple keys are not supported by this port");
  throw typeError(`unhashable type: '${pyTypeName(v)}'`);
}

/** `d.get(k, fallback)` on a dict. */
export function getOr(d: PyDict, k: PyValue, fallback: PyValue = null): PyValue {
  const v = dictGet(d, hashKey(k));
  return v === undefined ? fallback : v;
}

/** `d.get(key, default)` where the default is built only when needed (a fresh list or dict). */
export function getOrMake(d: PyDict, key: PyValue, make: () => PyValue): PyValue {
  const v = dictGet(d, hashKey(key));
  return v === undefined ? make() : v;
}

/** `obj.get(k, fallback)` on a value that must be a dict (else AttributeError). */
export function callGet(obj: PyValue, k: PyValue, fallback: PyValue = null): PyValue {
  if (!(obj instanceof Map)) throw attributeError(obj, "get");
  return getOr(obj, k, fallback);
}

/** Python `item in container` for a list, tuple, dict (keys), set or str (substring). */
export function contains(container: PyValue, item: PyValue): boolean {
  if (container instanceof Map || container instanceof Set)
    return findKey(container, hashKey(item)) !== undefined;
  if (Array.isArray(container)) return container.some((x) => pyEquals(x, item));
  if (container instanceof PyTuple) return container.items.some((x) => pyEquals(x, item));
  if (typeof container === "string") {
    if (typeof item !== "string")
      throw typeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    return container.includes(item);
  }
  throw typeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

/** Python `container[key]` for dicts and lists (an int or bool index, negative from the end). */
export function getItem(container: PyValue, key: PyValue): PyValue {
  if (container instanceof Map) {
    const v = dictGet(container, hashKey(key));
    if (v === undefined) throw keyError(key);
    return v;
  }
  if (Array.isArray(container)) {
    if (typeof key !== "bigint" && typeof key !== "boolean")
      throw typeError(`list indices must be integers or slices, not ${pyTypeName(key)}`);
    const n = Number(key);
    const i = n < 0 ? container.length + n : n;
    if (i < 0 || i >= container.length)
      throw new PyException("IndexError", "list index out of range");
    return container[i] as PyValue;
  }
  throw typeError(`'${pyTypeName(container)}' object is not subscriptable`);
}

/** Python `container[key] = value` for dicts. */
export function setItem(container: PyValue, key: PyValue, value: PyValue): void {
  if (!(container instanceof Map))
    throw typeError(`'${pyTypeName(container)}' object does not support item assignment`);
  dictSet(container, hashKey(key), value);
}

/** A dict the code subscripts or mutates; TypeError like Python otherwise. */
export function asDict(v: PyValue): PyDict {
  if (v instanceof Map) return v;
  throw typeError(`'${pyTypeName(v)}' object is not subscriptable`);
}

/** The items `for x in v` visits, as a new array (the loop may change `v`). */
export function iterate(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return [...v];
  if (v instanceof PyTuple) return [...v.items];
  if (v instanceof Map || v instanceof Set) return [...v.keys()];
  if (typeof v === "string") return Array.from(v);
  throw typeError(`'${pyTypeName(v)}' object is not iterable`);
}

/** `lst.extend(iterable)`. */
export function extend(list: PyValue, items: PyValue): void {
  if (!Array.isArray(list)) throw attributeError(list, "extend");
  list.push(...iterate(items));
}

/** `lst.append(x)`. */
export function append(list: PyValue, x: PyValue): void {
  if (!Array.isArray(list)) throw attributeError(list, "append");
  list.push(x);
}

/** `lst.remove(x)`: removes the first equal item; ValueError when absent. */
export function removeFirst(list: PyValue, x: PyValue): void {
  if (!Array.isArray(list)) throw attributeError(list, "remove");
  const index = list.findIndex((item) => pyEquals(item, x));
  if (index === -1) throw new PyException("ValueError", "list.remove(x): x not in list");
  list.splice(index, 1);
}

/** `s.lower()` on a value that must be a str (else AttributeError). */
export function lower(s: PyValue): string {
  if (typeof s !== "string") throw attributeError(s, "lower");
  return s.toLowerCase();
}

/** `keyword.lower() in text.lower()`, evaluated in Python's order (the keyword first). */
export function lowerIn(keyword: PyValue, text: PyValue): boolean {
  const k = lower(keyword);
  return lower(text).includes(k);
}

/** The str a str method named `method` is called on (else AttributeError). */
export function asStr(v: PyValue, method: string): string {
  if (typeof v !== "string") throw attributeError(v, method);
  return v;
}

/** `int(s)`, else `float(s)`, else `s` itself: the ports' "try int, then float" fallback. */
export function intFloatOrStr(s: string): PyValue {
  try {
    return pyInt(s);
  } catch {
    try {
      return pyFloat(s);
    } catch {
      return s;
    }
  }
}

/** Python `max(a, b)`: `a` unless `b > a`. */
export function max2(a: PyValue, b: PyValue): PyValue {
  return pyGt(b, a) ? b : a;
}

/** `isinstance(v, int)` (True for bools, as in Python). */
export function isIntLike(v: PyValue): boolean {
  return typeof v === "bigint" || typeof v === "boolean";
}
