/**
 * @module eval/bfcl/classes/util
 * Small Python idioms the ported classes share: `scenario.get(key, default)`, list membership
 * and removal, `list.extend`, `d[key]` with KeyError, hashability and str-method checks.
 */
import { PyException, attributeError, keyError, typeError } from "../../pyops.js";
import { PyTuple, dictGet, isPyKey, pyEquals, pyTypeName, type PyDict, type PyKey, type PyValue } from "../../pyvalue.js";

/** `scenario.get(key, default)`; the default is built only when needed. */
export function getOr(scenario: PyDict, key: string, make: () => PyValue): PyValue {
  return scenario.has(key) ? scenario.get(key)! : make();
}

/** A value used as a dict key or in `in dict`: TypeError when unhashable. */
export function hashable(v: PyValue): PyKey {
  if (isPyKey(v)) return v;
  if (v instanceof PyTuple) throw typeError("tuple keys are not supported by this port");
  throw typeError(`unhashable type: '${pyTypeName(v)}'`);
}

/** `x in container` for a list, tuple, dict (keys), set or str (substring). */
export function contains(container: PyValue, x: PyValue): boolean {
  if (Array.isArray(container)) return container.some((item) => pyEquals(item, x));
  if (container instanceof PyTuple) return container.items.some((item) => pyEquals(item, x));
  if (container instanceof Map) return dictGet(container, hashable(x)) !== undefined;
  if (container instanceof Set) return [...container].some((item) => pyEquals(item, hashable(x)));
  if (typeof container === "string") {
    if (typeof x !== "string") throw typeError(`'in <string>' requires string as left operand, not ${pyTypeName(x)}`);
    return container.includes(x);
  }
  throw typeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

/** The items of an iterable, as `for x in v` sees them. */
export function iterate(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return [...v];
  if (v instanceof PyTuple) return [...v.items];
  if (v instanceof Map) return [...v.keys()];
  if (v instanceof Set) return [...v];
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

/** `d[key]` on a dict: KeyError when absent, TypeError when `d` is not subscriptable. */
export function item(d: PyValue, key: PyValue): PyValue {
  if (d instanceof Map) {
    const v = dictGet(d, hashable(key));
    if (v === undefined) throw keyError(key);
    return v;
  }
  if (Array.isArray(d)) {
    if (typeof key !== "bigint") throw typeError(`list indices must be integers or slices, not ${pyTypeName(key)}`);
    const i = key < 0n ? BigInt(d.length) + key : key;
    if (i < 0n || i >= BigInt(d.length)) throw new PyException("IndexError", "list index out of range");
    return d[Number(i)]!;
  }
  throw typeError(`'${pyTypeName(d)}' object is not subscriptable`);
}

/** A dict the code subscripts or mutates; TypeError like Python otherwise. */
export function asDict(v: PyValue): PyDict {
  if (v instanceof Map) return v;
  throw typeError(`'${pyTypeName(v)}' object is not subscriptable`);
}

/** `s.lower()`: AttributeError for non-str. */
export function lower(v: PyValue): string {
  if (typeof v !== "string") throw attributeError(v, "lower");
  return v.toLowerCase();
}

/** A str needed for a str method call named `method`. */
export function str(v: PyValue, method: string): string {
  if (typeof v !== "string") throw attributeError(v, method);
  return v;
}
