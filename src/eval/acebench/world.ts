/**
 * @module eval/acebench/world
 * One entry's live API instances and upstream's way of executing calls on them: every involved
 * class is instantiated and loaded twice (its own config, then `BaseApi`'s), a method name runs on
 * every instance that has it (so `turn_on_wifi` switches all phone apps), and results become
 * strings as upstream's executor makes them. Also the saved final state the checker compares.
 */
import { SpadeError } from "../../errors.js";
import type { Json, JsonObject } from "../../env/index.js";
import { invoke, type AceApi, type ApiClassName, type Lang } from "./api-base.js";
import { BaseApi } from "./api-base.js";
import { FoodPlatform } from "./api-food.js";
import { MessageApi } from "./api-message.js";
import { ReminderApi } from "./api-reminder.js";
import { Travel } from "./api-travel.js";
import {
  deepCopy,
  fromJson,
  isDict,
  type PyDict,
  PyException,
  pyJsonDumps,
  pyStr,
  type PyValue,
  toJson,
} from "../python/index.js";

/**
 * How errors end a message. `multi_turn` (upstream's multi-turn executor): the first raising call
 * ends the whole message, whose result is the literal text `Error during execution: {str(e)}`
 * (upstream forgot the f-prefix) and whose instances are not recorded. `multi_step`: each raising
 * call yields `Error during execution: <message>` and the rest still run.
 */
export type ExecutionMode = "multi_turn" | "multi_step";

/** The attributes upstream saves per class for checking (`SAVED_CLASS`). */
export const SAVED_ATTRIBUTES: Readonly<Record<ApiClassName, readonly string[]>> = {
  BaseApi: ["wifi", "logged_in"],
  MessageApi: ["inbox"],
  ReminderApi: ["reminder_list"],
  FoodPlatform: ["users", "logged_in_users", "orders"],
  Travel: ["users", "reservations"],
};

/** A nested call used as an argument value (`f(x=g(a=1))`); only `dict(...)` evaluates. */
export class NestedCall {
  constructor(
    readonly name: string,
    readonly kwargs: ReadonlyArray<readonly [string, ArgValue]>,
  ) {}
}

/** An argument value: a Python value, or a nested call evaluated at call time. */
export type ArgValue = PyValue | NestedCall;

/** One call to execute: a function name (possibly dotted) and keyword arguments. */
export interface ApiCall {
  name: string;
  kwargs: ReadonlyArray<readonly [string, ArgValue]>;
}

/** What executing one message of calls produced. */
export interface Execution {
  /** One result string per call, as upstream's executor gives them; for an aborted
   * `multi_turn` message, the single upstream error text. */
  results: string[];
  /** The real error of an aborted `multi_turn` message (upstream hides it), else null. */
  abortedBy: string | null;
}

/** One class's saved state, `{ClassName: {attribute: value}}`, as JSON. */
export type SavedState = { [className: string]: JsonObject };

/** The upstream text of an aborted `multi_turn` message. */
export const MULTI_TURN_ERROR_TEXT = "Error during execution: {str(e)}";

function createApi(name: string, lang: Lang): AceApi {
  switch (name) {
    case "BaseApi":
      return new BaseApi(lang);
    case "MessageApi":
      return new MessageApi(lang);
    case "ReminderApi":
      return new ReminderApi(lang);
    case "FoodPlatform":
      return new FoodPlatform(lang);
    case "Travel":
      return new Travel(lang);
    default:
      throw new SpadeError("E_CONFIG", `unknown ACEBench class ${JSON.stringify(name)}`, {
        nextStep: "check the entry's involved_classes",
      });
  }
}

function evalArg(v: ArgValue): PyValue {
  if (!(v instanceof NestedCall)) return v;
  if (v.name !== "dict")
    throw new PyException("NameError", `name '${v.name.split(".")[0]}' is not defined`);
  return new Map<string, PyValue>(v.kwargs.map(([k, x]) => [k, evalArg(x)]));
}

/** Upstream's result string: a str as is, a dict via `json.dumps`, anything else via `str()`. */
export function resultText(v: PyValue): string {
  if (typeof v === "string") return v;
  if (isDict(v)) {
    try {
      return pyJsonDumps(v);
    } catch {
      return pyStr(v);
    }
  }
  return pyStr(v);
}

function errorText(err: unknown): string {
  if (err instanceof PyException) return err.message;
  throw err;
}

/** The live API instances of one entry. */
export class AceWorld {
  /** Instances in `involved_classes` order. */
  readonly instances: ReadonlyArray<readonly [string, AceApi]>;
  private readonly owners = new Map<string, AceApi[]>();
  /** True once upstream would have recorded the instances for scoring (see `ExecutionMode`). */
  recorded = false;

  constructor(
    readonly lang: Lang,
    involvedClasses: readonly string[],
    initialConfig: JsonObject,
  ) {
    const config = (name: string): PyDict => {
      const value = fromJson((initialConfig[name] ?? {}) as Json);
      return isDict(value) ? deepCopy(value) : new Map();
    };
    this.instances = involvedClasses.map((name) => {
      const api = createApi(name, lang);
      api.loadScenario(config(name));
      api.loadScenario(config("BaseApi"));
      for (const method of Object.keys(api.methods())) {
        const list = this.owners.get(method) ?? [];
        list.push(api);
        this.owners.set(method, list);
      }
      return [name, api] as const;
    });
  }

  /** Executes one message's calls in order. */
  execute(calls: readonly ApiCall[], mode: ExecutionMode): Execution {
    const results: string[] = [];
    // Upstream keeps the last call's value in one variable across the message: a name that no
    // instance has re-reports the previous result (or raises when there is none).
    let last: { value: PyValue } | undefined;
    for (const call of calls) {
      try {
        const method = call.name.split(".").pop() as string;
        for (const api of this.owners.get(method) ?? []) {
          if (method !== call.name)
            throw new PyException("NameError", `name '${call.name.split(".")[0]}' is not defined`);
          last = {
            value: invoke(
              api,
              method,
              call.kwargs.map(([k, v]) => [k, evalArg(v)] as const),
            ),
          };
        }
        if (last === undefined) {
          throw new PyException(
            "UnboundLocalError",
            "cannot access local variable 'func_call_result' where it is not associated with a value",
          );
        }
        results.push(resultText(last.value));
      } catch (err) {
        const message = errorText(err);
        if (mode === "multi_turn") return { results: [MULTI_TURN_ERROR_TEXT], abortedBy: message };
        results.push(`Error during execution: ${message}`);
      }
    }
    this.recorded = true;
    return { results, abortedBy: null };
  }

  /** The saved final state, `[{ClassName: {attr: value}}]` in involved order, JSON round-tripped. */
  savedState(): SavedState[] {
    if (!this.recorded) return [];
    return this.instances.map(([name, api]) => {
      const keep = SAVED_ATTRIBUTES[name as ApiClassName];
      const attrs: JsonObject = {};
      for (const [attr, value] of api.attributes())
        if (keep.includes(attr)) attrs[attr] = toJson(value);
      return { [name]: attrs };
    });
  }
}
