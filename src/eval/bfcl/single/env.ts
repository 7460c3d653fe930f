/**
 * @module eval/bfcl/single/env
 * A BFCL single-turn entry as an `Env`: the question, the functions as tools (with upstream's
 * Java/JavaScript hints and string types), one model answer whose tool calls are checked.
 */
import { SpadeError } from "../../../errors.js";
import type {
  Action,
  EnvMeta,
  JsonObject,
  ResetResult,
  StepResult,
  ToolSpec,
} from "../../../env/types.js";
import type { Env } from "../../../env/index.js";
import {
  fromJson,
  type PyDict,
  pyEquals,
  PyException,
  type PyValue,
  toJson,
} from "../../python/index.js";
import type { BfclFunctionDoc } from "../data.js";
import { toolSpecOf } from "../tools.js";
import {
  astCheck,
  languageOf,
  relevanceCheck,
  type AstVerdict,
  type SingleFunctionDoc,
} from "./ast-checker.js";
import type { BfclSingleEntry } from "./data.js";
import { renderOutput } from "./render.js";
import { clipHint } from "../../episode.js";

const HINTS = {
  java: " Note that the provided function is in Java 8 SDK syntax.",
  javascript: " Note that the provided function is in JavaScript syntax.",
  python: " Note that the provided function is in Python 3 syntax.",
};

/**
 * The function documents as upstream's inference shows them (`_func_doc_language_specific_pre_processing`):
 * a language note on each description; Java and JavaScript parameters become strings described
 * by their own type.
 */
export function singleToolDocs(entry: BfclSingleEntry): BfclFunctionDoc[] {
  const lang = languageOf(entry.category);
  return entry.functions.map((fn) => {
    const doc = structuredClone(fn) as unknown as BfclFunctionDoc & {
      parameters: { properties: Record<string, JsonObject> };
    };
    doc.description = `${doc.description ?? ""}${HINTS[lang]}`;
    if (lang === "python") return doc;
    const word = lang === "java" ? "Java" : "JavaScript";
    for (const value of Object.values(doc.parameters.properties ?? {})) {
      const type = String(value.type);
      value.description =
        `${String(value.description ?? "")}` +
        (type === "any"
          ? ` This parameter can be of any type of ${word} object in string representation.`
          : ` This is ${word} ${type} type parameter in string representation.`);
      const items = value.items as JsonObject | undefined;
      if (
        (lang === "java" ? type === "ArrayList" || type === "Array" : type === "array") &&
        items
      ) {
        value.description += ` The list elements are of type ${String(items.type)}; they are not in string representation.`;
        delete value.items;
      }
      if (lang === "javascript" && type === "dict" && value.properties !== undefined) {
        value.description += ` The dictionary entries have the following schema; they are not in string representation. ${pyJsonDumpsSpaced(value.properties)}`;
        delete value.properties;
      }
      value.type = "string";
    }
    return doc;
  });
}

/** Python's default `json.dumps` spacing (", " and ": "). */
function pyJsonDumpsSpaced(v: unknown): string {
  return JSON.stringify(v, null, 1)
    .replace(/\n\s*/g, " ")
    .replace(/\[ /g, "[")
    .replace(/ \]/g, "]")
    .replace(/\{ /g, "{")
    .replace(/ \}/g, "}");
}

/** The verdict on decoded calls; a checker exception (upstream would crash) is an invalid answer. */
export function checkSingle(entry: BfclSingleEntry, output: PyValue[]): AstVerdict {
  if (entry.groundTruth === null) return relevanceCheck(output, entry.category);
  try {
    return astCheck(
      entry.functions as SingleFunctionDoc[],
      output,
      entry.groundTruth,
      entry.category,
    );
  } catch (err) {
    if (err instanceof PyException)
      return { valid: false, errorType: `checker_exception:${err.pyType}` };
    throw err;
  }
}

/** One single-turn entry as an environment: reward 1 when the answer's calls pass the checker. */
export class BfclSingleEnv implements Env {
  readonly meta: EnvMeta;
  private done = true;
  private closed = false;
  /** Calls the oracle handed out, kept exact (JSON loses int vs float): id -> call. */
  private readonly oracleCalls = new Map<string, PyDict>();

  constructor(private readonly entry: BfclSingleEntry) {
    const tools: ToolSpec[] = singleToolDocs(entry).map(toolSpecOf);
    this.meta = {
      name: `bfcl-${entry.id.replace(/_/g, "-")}`,
      skill: "Tool Use",
      description: `BFCL v4 single-turn ${entry.category} entry ${entry.id}.`,
      maxTurns: 1,
      tools,
    };
  }

  private ensureOpen(): void {
    if (this.closed) throw new SpadeError("E_ENV_CONTRACT", "this BFCL environment is closed");
  }

  async reset(_seed: number): Promise<ResetResult> {
    this.ensureOpen();
    this.done = false;
    const text = (this.entry.question[0] ?? []).map((m) => m.content).join("\n\n");
    return { observation: text, info: { entryId: this.entry.id } };
  }

  async step(action: Action): Promise<StepResult> {
    this.ensureOpen();
    if (this.done)
      throw new SpadeError(
        "E_ENV_CONTRACT",
        "step() called before reset() or after the episode ended",
      );
    this.done = true;
    // Arguments arrive parsed: an integral number is an int (the model's `1.0` is gone), as in
    // multi-turn (see tools.ts); the oracle's own calls are kept exact.
    const output: PyValue[] = action.toolCalls.map((tc) => {
      const exact = this.oracleCalls.get(tc.id);
      if (
        exact &&
        [...exact.keys()][0] === tc.name &&
        JSON.stringify(toJson([...exact.values()][0]!)) === JSON.stringify(tc.arguments)
      )
        return exact;
      return new Map([[tc.name, fromJson(tc.arguments)]]) as PyDict;
    });
    const verdict = checkSingle(this.entry, output);
    const info: JsonObject = {
      entryId: this.entry.id,
      valid: verdict.valid,
      calls: output.map((c) => toJson(c)),
    };
    if (verdict.errorType) info.errorType = verdict.errorType;
    return {
      observation: "",
      reward: verdict.valid ? 1 : 0,
      terminated: true,
      truncated: false,
      info,
    };
  }

  private goldOutput(): PyValue[] {
    const gt = this.entry.groundTruth;
    if (gt === null) {
      const first = this.entry.functions[0];
      return this.entry.category.includes("irrelevance") || !first
        ? []
        : [new Map([[first.name, new Map()]]) as PyDict];
    }
    const calls = gt.map((answer) => {
      const [name, params] = [...answer.entries()][0]!;
      const args: PyDict = new Map();
      for (const [param, options] of params as PyDict) {
        const v = (options as PyValue[]).find((o) => !pyEquals(o, ""));
        if (v !== undefined) args.set(param, concrete(v));
      }
      return new Map([[name, args]]) as PyDict;
    });
    const lang = languageOf(this.entry.category);
    return lang === "python" ? calls : renderOutput(calls, this.entry.functions, lang);
  }

  async hint(): Promise<string> {
    this.ensureOpen();
    const gold = this.goldOutput();
    const text =
      gold.length === 0
        ? "None of the functions fits this request: answer without calling any."
        : `The reference answer makes these calls: ${JSON.stringify(gold.map((c) => toJson(c)))}`;
    return clipHint(text);
  }

  async solve(): Promise<Action> {
    this.ensureOpen();
    this.oracleCalls.clear();
    const toolCalls = this.goldOutput().map((call, i) => {
      const [name, args] = [...(call as PyDict).entries()][0]!;
      const id = `bfcl_oracle_${i}`;
      this.oracleCalls.set(id, call as PyDict);
      return { id, name: String(name), arguments: toJson(args) as JsonObject };
    });
    return {
      text: toolCalls.length === 0 ? "None of the functions fits this request." : "",
      answer: null,
      toolCalls,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A dict answer (`{key: [options]}`) or a list of them, resolved to each key's first option. */
function concrete(v: PyValue): PyValue {
  if (v instanceof Map) {
    const out: PyDict = new Map();
    for (const [k, options] of v) {
      const x = Array.isArray(options) ? options.find((o) => !pyEquals(o, "")) : options;
      if (x !== undefined) out.set(k, concrete(x));
    }
    return out;
  }
  if (Array.isArray(v) && v.some((x) => x instanceof Map)) return v.map(concrete);
  return v;
}
