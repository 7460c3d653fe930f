/**
 * @module eval/bfcl/api
 * What every ported BFCL API class provides (its Python signatures, scenario loading, public
 * state) and Python's argument binding with CPython's TypeError messages.
 */
import { getOrMake, type PyDict, PyException, type PyValue, typeError } from "../python/index.js";
import type { BfclSession } from "./session.js";

/** One parameter of a Python method (after `self`). */
export interface ParamSpec {
  name: string;
  /** Builds the default value; absent for required parameters. */
  default?: () => PyValue;
  /**
   * The default is one mutable object shared by every call (Python evaluates defaults once):
   * the session keeps it, so mutations show up where they would in Python.
   */
  sharedDefault?: boolean;
}

/** Bound arguments by parameter name. */
export type Args = Record<string, PyValue>;

/** One public method: its signature and its body. */
export interface MethodSpec {
  params: readonly ParamSpec[];
  run(args: Args): PyValue;
}

/** A ported API class instance, as the executor and the checkers see it. */
export interface BfclApi {
  /** Python class name, e.g. `GorillaFileSystem`. */
  readonly className: string;
  /** Public methods by name, in the order Python's `inspect.getmembers` lists them (sorted). */
  readonly methods: ReadonlyMap<string, MethodSpec>;
  /** `_load_scenario(deepcopy(config), long_context)`; stateless classes ignore it. */
  loadScenario(scenario: PyDict, longContext: boolean): void;
  /** Every public attribute (`vars()` without `_` names) in definition order. */
  publicState(): Array<[string, PyValue]>;
}

/**
 * A public attribute a class loads from its scenario: its Python name, the instance property
 * that holds it, and its default (built at each load: upstream's `scenario.get(name, default)`).
 */
export type StateField<T> = readonly [
  name: string,
  property: keyof T & string,
  make: () => PyValue,
];

/** A class's scenario attributes as one table: loaded from a scenario, read back as state. */
export interface StateFields<T> {
  /** Sets each field's property from `scenario`, else from its default, in order. */
  load(api: T, scenario: PyDict): void;
  /** The fields' values by Python name, in order: `publicState` of the attributes they cover. */
  state(api: T): Array<[string, PyValue]>;
}

/** The table of `fields`, in `vars()` order. */
export function stateFields<T extends object>(
  fields: ReadonlyArray<StateField<T>>,
): StateFields<T> {
  const props = (api: T) => api as unknown as Record<string, PyValue>;
  return {
    load(api, scenario) {
      for (const [name, property, make] of fields)
        props(api)[property] = getOrMake(scenario, name, make);
    },
    state: (api) => fields.map(([name, property]) => [name, props(api)[property] as PyValue]),
  };
}

/** Builds the method table from `[name, params, body]` rows, sorted as `inspect.getmembers` does. */
export function methodTable(
  rows: Array<[string, ParamSpec[], (a: Args) => PyValue]>,
): Map<string, MethodSpec> {
  const sorted = [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(sorted.map(([name, params, run]) => [name, { params, run }]));
}

/**
 * A constant str-keyed table's entry for `key`, else `fallback` (upstream's `TABLE.get(key,
 * fallback)`; hash `key` first where upstream's lookup raises on an unhashable one).
 */
export function tableGet<T, F>(
  table: Readonly<Record<string, T>>,
  key: PyValue | undefined,
  fallback: F,
): T | F {
  return typeof key === "string" && Object.hasOwn(table, key) ? table[key]! : fallback;
}

/** A required parameter. */
export function req(name: string): ParamSpec {
  return { name };
}

/** An optional parameter with an immutable default. */
export function opt(name: string, value: PyValue): ParamSpec {
  return { name, default: () => value };
}

function nameList(names: string[]): string {
  const quoted = names.map((n) => `'${n}'`);
  if (quoted.length <= 1) return quoted.join("");
  if (quoted.length === 2) return `${quoted[0]} and ${quoted[1]}`;
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted[quoted.length - 1]}`;
}

/**
 * Binds positional and keyword arguments to `params` as CPython does for a bound method,
 * raising TypeError with CPython 3.10's messages for too many, unknown, repeated or missing
 * arguments. `qualname` is `Class.method`.
 */
export function bindArgs(
  qualname: string,
  params: readonly ParamSpec[],
  args: readonly PyValue[],
  kwargs: Readonly<Record<string, PyValue>>,
  session: BfclSession,
): Args {
  const total = params.length;
  if (args.length > total) {
    const required = params.filter((p) => !p.default).length;
    const takes =
      required === total
        ? `${total + 1} positional argument${total + 1 === 1 ? "" : "s"}`
        : `from ${required + 1} to ${total + 1} positional arguments`;
    const given = args.length + 1;
    throw typeError(
      `${qualname}() takes ${takes} but ${given} ${given === 1 ? "was" : "were"} given`,
    );
  }
  const bound: Args = Object.create(null) as Args;
  args.forEach((v, i) => {
    bound[params[i]!.name] = v;
  });
  for (const [key, v] of Object.entries(kwargs)) {
    const index = params.findIndex((p) => p.name === key);
    if (index === -1) throw typeError(`${qualname}() got an unexpected keyword argument '${key}'`);
    if (index < args.length)
      throw typeError(`${qualname}() got multiple values for argument '${key}'`);
    bound[key] = v;
  }
  const missing = params.filter((p) => !(p.name in bound) && !p.default).map((p) => p.name);
  if (missing.length > 0) {
    const plural = missing.length === 1 ? "argument" : "arguments";
    throw typeError(
      `${qualname}() missing ${missing.length} required positional ${plural}: ${nameList(missing)}`,
    );
  }
  for (const p of params) {
    if (p.name in bound || !p.default) continue;
    bound[p.name] = p.sharedDefault
      ? session.sharedDefault(`${qualname}.${p.name}`, p.default)
      : p.default();
  }
  return bound;
}

/** Raised for Python exceptions a method body throws on purpose (e.g. `raise ValueError(...)`). */
export { PyException };
