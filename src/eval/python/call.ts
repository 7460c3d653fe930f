/**
 * @module eval/python/call
 * Parsing Python call strings as benchmark ground truth writes them (`cd(folder='document')`,
 * `[f(a=1), g('x')]`) and Python / JSON literals into `PyValue`s, ints kept exact as bigint.
 * Only literals are accepted as arguments: nothing is ever evaluated.
 */
import type { Mode } from "./cursor.js";
import { Reader } from "./reader.js";
import type { PyValue } from "./value.js";

/** One parsed call: `name(*args, **kwargs)`. A dotted name (`obj.method`) is kept whole. */
export interface PyCall {
  name: string;
  args: PyValue[];
  kwargs: Record<string, PyValue>;
}

/** Options of `parsePythonCalls`. */
export interface PythonCallsOptions {
  /**
   * Read argument values as the decoders built on Python's `ast` do (ACEBench's `resolve_ast_by_type`):
   * a bare name is its id as a string (`true` -> "true"), a call `g(k=v)` is the dict
   * `{g: {k: v}}`. Default false: only literals.
   */
  astValues?: boolean;
}

/** Reads `src` whole with `read`; text left after it fails E_PARSE ("unexpected text after `what`"). */
function readWhole<T>(
  src: string,
  mode: Mode,
  what: string,
  read: (r: Reader) => T,
  options: PythonCallsOptions = {},
): T {
  const r = new Reader(src, mode, options);
  const v = read(r);
  if (!r.atEnd()) r.fail(`unexpected text after ${what}`);
  return v;
}

/**
 * Parses one Python call (`f(1, x='a')`) or a list of calls (`[f(a=1), g(b=2)]`).
 * Throws SpadeError E_PARSE on anything else (nested calls, expressions, trailing text).
 */
export function parsePythonCalls(src: string, options: PythonCallsOptions = {}): PyCall[] {
  return readWhole(
    src,
    "python",
    "the call",
    (r) => {
      if (!r.eat("[")) return [r.call()];
      const calls: PyCall[] = [];
      r.items("]", () => calls.push(r.call()));
      return calls;
    },
    options,
  );
}

/** Parses exactly one Python call string. */
export function parsePythonCall(src: string): PyCall {
  return readWhole(src, "python", "the call", (r) => r.call());
}

/** Parses one Python literal (`{'a': [1, 2.5, None]}`, `(1,)`, `-3`, `'x'`). */
export function parsePythonLiteral(src: string): PyValue {
  return readWhole(src, "python", "the literal", (r) => r.value());
}

/**
 * Parses JSON text the way Python's `json.loads` types it: `1` is an int (bigint), `1.0` and
 * `1e5` are floats, objects become dicts. Also accepts NaN and Infinity as Python does.
 */
export function parseJsonPy(src: string): PyValue {
  return readWhole(src, "json", "the JSON value", (r) => r.value());
}
