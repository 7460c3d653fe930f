/**
 * @module eval/bfcl/state
 * The public state of API instances in the golden files' JSON form (directories and files as
 * `{"__type": ...}`, sets as `{"__set": [sorted]}`, int keys as strings), and upstream's state
 * checker: every public attribute of the ground truth equal (Python `==`) in the model's.
 */
import type { Json, JsonObject } from "../../env/types.js";
import { compareCodePoints } from "../pyops.js";
import { PyObject, PyTuple, jsonKey, pyEquals, type PyKey, type PyValue } from "../pyvalue.js";
import { pyRepr } from "../pyformat.js";
import { FsDirectory, FsFile } from "./fs-nodes.js";
import type { BfclInstances } from "./executor.js";

/** Deeper nesting than this is treated as a cycle (Python would hit its recursion limit). */
const MAX_DEPTH = 400;

function sortKeys(items: PyKey[]): PyKey[] {
  return [...items].sort((a, b) => {
    if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
    if (typeof a !== "string" && typeof b !== "string" && a !== null && b !== null) return Number(a) - Number(b);
    return 0;
  });
}

/** A Python value in the golden JSON form. */
export function goldenJson(v: PyValue, depth = 0): Json {
  if (depth > MAX_DEPTH) throw new RangeError("state nests too deeply (a cycle?)");
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number") return v;
  if (Array.isArray(v)) return v.map((x) => goldenJson(x, depth + 1));
  if (v instanceof PyTuple) return v.items.map((x) => goldenJson(x, depth + 1));
  if (v instanceof Set) return { __set: sortKeys([...v]).map((x) => goldenJson(x, depth + 1)) };
  if (v instanceof Map) {
    const out: JsonObject = {};
    for (const [k, x] of v) out[jsonKey(k)] = goldenJson(x, depth + 1);
    return out;
  }
  if (v instanceof FsDirectory) {
    const contents: JsonObject = {};
    for (const [k, x] of v.contents) contents[k] = goldenJson(x, depth + 1);
    return { __type: "Directory", name: v.name, contents };
  }
  if (v instanceof FsFile) return { __type: "File", name: v.name, content: goldenJson(v.content, depth + 1) };
  if (v instanceof PyObject) return v.pyRepr();
  return null;
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
        differences[name] = { model: modelValue === undefined ? "<missing>" : safeRepr(modelValue), groundTruth: safeRepr(gtValue) };
      }
    }
    if (Object.keys(differences).length > 0) return { valid: false, className, differences };
  }
  return { valid: true };
}

function safeRepr(v: PyValue): string {
  try {
    const text = pyRepr(v);
    return text.length > 2000 ? `${text.slice(0, 2000)}...` : text;
  } catch {
    return "<unprintable>";
  }
}

/** Deep equality of two JSON values (numbers by value, object keys in any order). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]!));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k]!, b[k]!));
}
