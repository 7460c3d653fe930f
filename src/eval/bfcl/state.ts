/**
 * @module eval/bfcl/state
 * The public state of API instances in the golden files' JSON form (directories and files as
 * `{"__type": ...}`, sets as `{"__set": [sorted]}`, int keys as strings), and upstream's state
 * checker: every public attribute of the ground truth equal (Python `==`) in the model's.
 */
import type { Json, JsonObject } from "../../env/types.js";
import {
  compareCodePoints,
  jsonKey,
  pyEquals,
  type PyKey,
  pyRepr,
  PyTuple,
  type PyValue,
} from "../python/index.js";
import { FsDirectory, FsFile } from "./fs-nodes.js";
import type { BfclInstances } from "./executor.js";

/** Deeper nesting than this is treated as a cycle (Python would hit its recursion limit). */
const MAX_DEPTH = 400;

function sortKeys(items: PyKey[]): PyKey[] {
  return [...items].sort((a, b) => {
    if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
    if (typeof a !== "string" && typeof b !== "string" && a !== null && b !== null)
      return Number(a) - Number(b);
    return 0;
  });
}

/**
 * A Python value in the golden form, still as a Python value (so `pyJsonDumps` prints it as
 * upstream's `json.dumps` would): directories and files as `{"__type": ...}` dicts, sets as
 * `{"__set": [sorted]}`, dict keys as strings, tuples as lists.
 */
export function goldenValue(v: PyValue, depth = 0): PyValue {
  if (depth > MAX_DEPTH) throw new RangeError("state nests too deeply (a cycle?)");
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => goldenValue(x, depth + 1));
  if (v instanceof PyTuple) return v.items.map((x) => goldenValue(x, depth + 1));
  if (v instanceof Set)
    return new Map([["__set", sortKeys([...v]).map((x) => goldenValue(x, depth + 1))]]);
  if (v instanceof Map) {
    const out = new Map<PyKey, PyValue>();
    for (const [k, x] of v) out.set(jsonKey(k), goldenValue(x, depth + 1));
    return out;
  }
  if (v instanceof FsDirectory) {
    const contents = new Map<PyKey, PyValue>();
    for (const [k, x] of v.contents) contents.set(k, goldenValue(x, depth + 1));
    return new Map<PyKey, PyValue>([
      ["__type", "Directory"],
      ["name", v.name],
      ["contents", contents],
    ]);
  }
  if (v instanceof FsFile) {
    return new Map<PyKey, PyValue>([
      ["__type", "File"],
      ["name", v.name],
      ["content", goldenValue(v.content, depth + 1)],
    ]);
  }
  return v.pyRepr();
}

/** A Python value in the golden JSON form. */
export function goldenJson(v: PyValue): Json {
  const g = goldenValue(v);
  return toPlainJson(g);
}

function toPlainJson(v: PyValue): Json {
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "number")
    return v;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (v instanceof Map) {
    const out: JsonObject = {};
    for (const [k, x] of v) out[String(k)] = toPlainJson(x);
    return out;
  }
  return null;
}

/** Every involved instance's public state as one Python dict in golden form: `{className: {attribute: value}}`. */
export function instancesGoldenValue(instances: BfclInstances): PyValue {
  const out = new Map<PyKey, PyValue>();
  for (const [className, api] of instances.byClass) {
    out.set(
      className,
      new Map<PyKey, PyValue>(api.publicState().map(([name, value]) => [name, goldenValue(value)])),
    );
  }
  return out;
}

/** Every involved instance's public state: `{className: {attribute: json}}`. */
export function instancesState(instances: BfclInstances): JsonObject {
  const out: JsonObject = {};
  for (const [className, api] of instances.byClass) {
    const attrs: JsonObject = {};
    for (const [name, value] of api.publicState()) attrs[name] = goldenJson(value);
    out[className] = attrs;
  }
  return out;
}

/** Result of the state checker. */
export interface StateCheck {
  valid: boolean;
  /** The first class whose state differs, when invalid. */
  className?: string;
  /** The differing attributes: name -> repr of model and ground-truth values. */
  differences?: Record<string, { model: string; groundTruth: string }>;
}

/** Upstream's `state_checker`: compares every public attribute of each ground-truth instance. */
export function stateChecker(model: BfclInstances, groundTruth: BfclInstances): StateCheck {
  for (const [className, gt] of groundTruth.byClass) {
    const mine = model.byClass.get(className);
    if (!mine) return { valid: false, className, differences: {} };
    const modelAttrs = new Map(mine.publicState());
    const differences: Record<string, { model: string; groundTruth: string }> = {};
    for (const [name, gtValue] of gt.publicState()) {
      const modelValue = modelAttrs.get(name);
      if (modelValue === undefined || !pyEquals(modelValue, gtValue)) {
        differences[name] = {
          model: modelValue === undefined ? "<missing>" : safeRepr(modelValue),
          groundTruth: safeRepr(gtValue),
        };
      }
    }
    if (Object.keys(differences).length > 0) return { valid: false, className, differences };
  }
  return { valid: true };
}

/** Characters of each value's repr kept in a state difference. */
const REPR_LIMIT = 2000;

/** Thrown inside `reprPrefix` once enough text is written. */
const ENOUGH = Symbol("enough");

/**
 * The first REPR_LIMIT characters of `pyRepr(v)`, then "...". Directories are written entry by
 * entry and stop early: cp shares subdirectories, so a few dozen calls make a tree whose full
 * repr is exponentially long (42 calls: 3.5 s; a few more: gigabytes, then a RangeError).
 */
function safeRepr(v: PyValue): string {
  const parts: string[] = [];
  let length = 0;
  const emit = (text: string): void => {
    parts.push(text);
    length += text.length;
    if (length > REPR_LIMIT) throw ENOUGH;
  };
  const walk = (x: PyValue): void => {
    if (!(x instanceof FsDirectory)) {
      emit(pyRepr(x));
      return;
    }
    emit(`<Directory: ${x.name}, Parent: ${x.parent ? x.parent.name : "None"}, Contents: {`);
    let first = true;
    for (const [k, child] of x.contents) {
      emit(`${first ? "" : ", "}${pyRepr(k)}: `);
      first = false;
      walk(child);
    }
    emit("}>");
  };
  try {
    walk(v);
  } catch (err) {
    if (err !== ENOUGH) return "<unprintable>";
  }
  const text = parts.join("");
  return text.length > REPR_LIMIT ? `${text.slice(0, REPR_LIMIT)}...` : text;
}

/** Deep equality of two JSON values (numbers by value, object keys in any order). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => jsonEqual(x, b[i]!))
    );
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k]!, b[k]!));
}
