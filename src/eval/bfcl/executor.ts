/**
 * @module eval/bfcl/executor
 * Port of upstream's `execute_multi_turn_func_call`: instantiate the involved classes once per
 * entry, run call strings against them, and turn each return value into the exact string the
 * model sees (`str` as is, `dict` via `json.dumps` else `str()`, errors as
 * `"Error during execution: ..."`).
 */
import { SpadeError } from "../../errors.js";
import {
  deepCopy,
  isDict,
  parsePythonCall,
  type PyCall,
  type PyDict,
  PyException,
  pyJsonDumps,
  PyJsonTypeError,
  pyStr,
  type PyValue,
} from "../python/index.js";
import { bindArgs, type BfclApi, type ParamSpec } from "./api.js";
import { createApi, isStatelessClass } from "./classes/index.js";
import type { BfclSession } from "./session.js";

/** Function names upstream refuses to evaluate. */
const FORBIDDEN = new Set(["kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"]);

/** The live API instances of one side (model or ground truth) of one entry. */
export class BfclInstances {
  /** Instances by class name, in `involved_classes` order. */
  readonly byClass = new Map<string, BfclApi>();
  /** Method name -> instance; a later class wins a name clash, as upstream's mapping does. */
  private readonly byMethod = new Map<string, BfclApi>();

  /**
   * Creates and loads every involved class: `_load_scenario(deepcopy(initial_config[cls]))`
   * unless the class is stateless.
   */
  constructor(
    private readonly session: BfclSession,
    involvedClasses: readonly string[],
    initialConfig: PyDict,
    longContext: boolean,
  ) {
    for (const className of involvedClasses) {
      const api = createApi(className, session);
      if (!isStatelessClass(className)) {
        const config = initialConfig.get(className);
        api.loadScenario(isDict(config) ? deepCopy(config) : new Map(), longContext);
      }
      this.byClass.set(className, api);
      for (const name of api.methods.keys()) this.byMethod.set(name, api);
    }
  }

  /** Executes one call string and returns the result string upstream would produce. */
  executeString(callSource: string): string {
    const head = callSource.split("(")[0]!;
    const bare = head.includes(".") ? head.split(".")[1]! : head;
    if (FORBIDDEN.has(bare)) return `Error during execution: Function call ${bare} is not allowed.`;
    let call: PyCall;
    try {
      call = parsePythonCall(callSource);
    } catch (err) {
      if (err instanceof SpadeError && err.code === "E_PARSE")
        return "Error during execution: invalid syntax (<string>, line 1)";
      throw err;
    }
    return this.executeCall(call);
  }

  /** Executes one parsed call and returns the result string upstream would produce. */
  executeCall(call: PyCall): string {
    if (FORBIDDEN.has(call.name))
      return `Error during execution: Function call ${call.name} is not allowed.`;
    try {
      return formatResult(this.invoke(call));
    } catch (err) {
      if (err instanceof PyException) return `Error during execution: ${err.message}`;
      throw err;
    }
  }

  /** The Python signature of the public method `name` as the executor resolves it, if any. */
  methodParams(name: string): readonly ParamSpec[] | undefined {
    return this.byMethod.get(name)?.methods.get(name)?.params;
  }

  /** Executes calls in order; one result string per call. */
  executeAll(calls: readonly string[]): string[] {
    return calls.map((c) => this.executeString(c));
  }

  private invoke(call: PyCall): PyValue {
    const api = call.name.includes(".") ? undefined : this.byMethod.get(call.name);
    if (!api) {
      const first = call.name.split(".")[0]!;
      throw new PyException("NameError", `name '${first}' is not defined`);
    }
    const method = api.methods.get(call.name)!;
    const args = bindArgs(
      `${api.className}.${call.name}`,
      method.params,
      call.args,
      call.kwargs,
      this.session,
    );
    return method.run(args);
  }
}

/** How upstream's executor turns a return value into text. */
export function formatResult(value: PyValue): string {
  if (typeof value === "string") return value;
  if (isDict(value)) {
    try {
      return pyJsonDumps(value);
    } catch (err) {
      if (err instanceof PyJsonTypeError) return pyStr(value);
      throw err;
    }
  }
  return pyStr(value);
}
