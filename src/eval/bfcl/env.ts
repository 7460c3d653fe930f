/**
 * @module eval/bfcl/env
 * A BFCL multi-turn entry as a native `Env`, run the way upstream's FC inference loop runs it:
 * user turns one after another, tool calls executed on live instances, a turn ending when the
 * model answers without tool calls, more than 20 tool-call steps in a turn ending the episode
 * (force-terminated), withheld functions (miss_func) added at their turn, and at the end the
 * upstream checker's verdict as the reward (1 valid, 0 not).
 */
import { SpadeError } from "../../errors.js";
import type {
  Action,
  Env,
  EnvMeta,
  JsonObject,
  ResetResult,
  StepResult,
  ToolResult,
  ToolSpec,
} from "../../env/types.js";
import { parsePythonCall, type PyCall } from "../python/index.js";
import { checkEntry, type CheckResult } from "./checker.js";
import { isLongContext } from "./categories.js";
import type { BfclEntry, BfclFunctionDoc } from "./data.js";
import { BfclInstances } from "./executor.js";
import { BfclSession, type BfclSessionOptions } from "./session.js";
import { jsonEqual } from "./state.js";
import { callSource, jsonArgsOf, pyCallFromJson, toolSpecOf } from "./tools.js";
import { clipHint } from "../episode.js";

/** Upstream's `MAXIMUM_STEP_LIMIT`: a turn's step count above it force-terminates the entry. */
export const BFCL_MAX_STEPS_PER_TURN = 20;

/** What upstream says to the model at a turn that brings the withheld functions. */
export const ADDED_FUNCTIONS_PROMPT =
  "I have updated some more functions you can choose from. What about now?";

/** Options of a BFCL environment. */
export interface BfclEnvOptions {
  entry: BfclEntry;
  /** Function documents per class (`loadFunctionDocs`). */
  docs: ReadonlyMap<string, readonly BfclFunctionDoc[]>;
  /** Long-context data loader and clock. */
  session?: BfclSessionOptions;
  /** Tool-call steps allowed per turn before force termination; default 20. */
  maxStepsPerTurn?: number;
}

/** The tools of an entry at its start, and those each holdout turn adds. */
export function entryTools(
  entry: BfclEntry,
  docs: ReadonlyMap<string, readonly BfclFunctionDoc[]>,
): {
  initial: BfclFunctionDoc[];
  addedAtTurn: Map<number, BfclFunctionDoc[]>;
} {
  const all = entry.involvedClasses.flatMap((c) => [...(docs.get(c) ?? [])]);
  const addedAtTurn = new Map<number, BfclFunctionDoc[]>();
  const withheld = new Set<string>();
  for (const [turn, names] of Object.entries(entry.missedFunction)) {
    const added: BfclFunctionDoc[] = [];
    for (const name of names) {
      const doc = all.find((d) => d.name === name && !withheld.has(name));
      if (doc) {
        added.push(doc);
        withheld.add(name);
      }
    }
    addedAtTurn.set(Number(turn), added);
  }
  return { initial: all.filter((d) => !withheld.has(d.name)), addedAtTurn };
}

/** A BFCL multi-turn entry as an `Env`. Build it with `bfclEnv`. */
export class BfclEnv implements Env {
  readonly meta: EnvMeta;
  private readonly entry: BfclEntry;
  private readonly addedAtTurn: Map<number, BfclFunctionDoc[]>;
  private readonly initialTools: ToolSpec[];
  private readonly sessionOptions: BfclSessionOptions;
  private readonly maxSteps: number;
  private instances: BfclInstances | null = null;
  private tools: ToolSpec[] = [];
  private turn = 0;
  private stepsThisTurn = 0;
  private callsByTurn: string[][][] = [];
  private done = true;
  private closed = false;
  /** Calls the oracle handed out, kept exact (JSON loses int vs float): id -> call. */
  private readonly oracleCalls = new Map<string, PyCall>();

  constructor(options: BfclEnvOptions) {
    this.entry = options.entry;
    const { initial, addedAtTurn } = entryTools(options.entry, options.docs);
    this.initialTools = initial.map(toolSpecOf);
    this.addedAtTurn = addedAtTurn;
    this.sessionOptions = options.session ?? {};
    this.maxSteps = options.maxStepsPerTurn ?? BFCL_MAX_STEPS_PER_TURN;
    const turns = options.entry.question.length;
    this.meta = {
      name: `bfcl-${options.entry.id.replace(/_/g, "-")}`,
      skill: "Multi-Step Workflows",
      description: `BFCL v4 multi-turn ${options.entry.category} entry ${options.entry.id} (${options.entry.involvedClasses.join(", ")}).`,
      // Every turn may use its full step budget plus the answer that ends it.
      maxTurns: turns * (this.maxSteps + 2),
      tools: this.initialTools,
    };
  }

  /** The tools available now (grows at miss_func holdout turns; `meta.tools` is the start). */
  currentTools(): ToolSpec[] {
    return [...this.tools];
  }

  /** The decoded calls so far: per turn, per step (what the checker re-executes). */
  recordedCalls(): string[][][] {
    return this.callsByTurn.map((turn) => turn.map((step) => [...step]));
  }

  private ensureOpen(): void {
    if (this.closed) throw new SpadeError("E_ENV_CONTRACT", "this BFCL environment is closed");
  }

  private turnObservation(turn: number): { text: string; added: ToolSpec[] } {
    const added = (this.addedAtTurn.get(turn) ?? []).map(toolSpecOf);
    if (added.length > 0) {
      this.tools.push(...added);
      // The prompting form of upstream's message: the new documents, then the FC sentence.
      const docs = JSON.stringify(added.map((t) => t.function));
      return { text: `${docs}\n${ADDED_FUNCTIONS_PROMPT}`, added };
    }
    return { text: (this.entry.question[turn] ?? []).map((m) => m.content).join("\n\n"), added };
  }

  async reset(_seed: number): Promise<ResetResult> {
    this.ensureOpen();
    const session = new BfclSession(this.sessionOptions);
    this.instances = new BfclInstances(
      session,
      this.entry.involvedClasses,
      this.entry.initialConfig,
      isLongContext(this.entry.id),
    );
    this.tools = [...this.initialTools];
    this.turn = 0;
    this.stepsThisTurn = 0;
    this.callsByTurn = [[]];
    this.oracleCalls.clear();
    this.done = false;
    const { text, added } = this.turnObservation(0);
    return { observation: text, info: this.info(added) };
  }

  private info(added: ToolSpec[] = [], extra: JsonObject = {}): JsonObject {
    const info: JsonObject = {
      entryId: this.entry.id,
      turn: this.turn,
      stepInTurn: this.stepsThisTurn,
      ...extra,
    };
    if (added.length > 0) info.addedTools = added as unknown as JsonObject[];
    return info;
  }

  private toPyCall(call: Action["toolCalls"][number]): PyCall {
    const exact = this.oracleCalls.get(call.id);
    if (exact && exact.name === call.name && jsonEqual(jsonArgsOf(exact.kwargs), call.arguments))
      return exact;
    return pyCallFromJson(call.name, call.arguments);
  }

  async step(action: Action): Promise<StepResult> {
    this.ensureOpen();
    if (this.done || !this.instances)
      throw new SpadeError(
        "E_ENV_CONTRACT",
        "step() called before reset() or after the episode ended",
      );
    if (action.toolCalls.length > 0) return this.runTools(action, this.instances);
    // No tool calls: upstream decodes nothing and moves on to the next turn.
    this.turn++;
    this.stepsThisTurn = 0;
    if (this.turn >= this.entry.question.length)
      return this.finish(checkEntry(this.entry, this.callsByTurn, this.sessionOptions));
    this.callsByTurn.push([]);
    const { text, added } = this.turnObservation(this.turn);
    return {
      observation: text,
      reward: 0,
      terminated: false,
      truncated: false,
      info: this.info(added),
    };
  }

  private runTools(action: Action, instances: BfclInstances): StepResult {
    const calls = action.toolCalls.map((tc) => this.toPyCall(tc));
    const toolResults: ToolResult[] = calls.map((call, i) => ({
      id: action.toolCalls[i]!.id,
      content: instances.executeCall(call),
    }));
    this.callsByTurn[this.turn]!.push(calls.map(callSource));
    this.stepsThisTurn++;
    if (this.stepsThisTurn > this.maxSteps) {
      // Upstream stops the whole entry; its turn count then differs from the ground truth's.
      const verdict: CheckResult = {
        valid: false,
        errorType: "multi_turn:force_terminated",
        errorMessage: `Model has been forced to quit after ${this.maxSteps} steps.`,
        turn: this.turn,
      };
      return { ...this.finish(verdict), toolResults };
    }
    return {
      observation: "",
      reward: 0,
      terminated: false,
      truncated: false,
      info: this.info(),
      toolResults,
    };
  }

  private finish(verdict: CheckResult): StepResult {
    this.done = true;
    const extra: JsonObject = { valid: verdict.valid };
    if (verdict.errorType) extra.errorType = verdict.errorType;
    if (verdict.errorMessage) extra.errorMessage = verdict.errorMessage;
    if (verdict.turn !== undefined) extra.failedTurn = verdict.turn;
    return {
      observation: "",
      reward: verdict.valid ? 1 : 0,
      terminated: true,
      truncated: false,
      info: this.info([], extra),
    };
  }

  async hint(): Promise<string> {
    this.ensureOpen();
    const expected = this.entry.groundTruth[this.turn] ?? [];
    const text =
      expected.length === 0
        ? "This request cannot be completed with the functions and information given: do not call any function; say what is missing."
        : `The reference solution for this request makes these calls: ${expected.join("; ")}`;
    return clipHint(text);
  }

  async solve(): Promise<Action> {
    this.ensureOpen();
    const expected = this.entry.groundTruth[this.turn] ?? [];
    if (this.done || this.stepsThisTurn > 0 || expected.length === 0)
      return { text: "Done.", answer: null, toolCalls: [] };
    const toolCalls = expected.map((source, i) => {
      const parsed = parsePythonCall(source);
      const params = this.instances?.methodParams(parsed.name) ?? [];
      const kwargs: PyCall["kwargs"] = {};
      parsed.args.forEach((v, j) => {
        kwargs[params[j]?.name ?? `arg${j}`] = v;
      });
      Object.assign(kwargs, parsed.kwargs);
      const exact: PyCall = { name: parsed.name, args: [], kwargs };
      const id = `bfcl_oracle_${this.turn}_${i}`;
      this.oracleCalls.set(id, exact);
      return { id, name: exact.name, arguments: jsonArgsOf(kwargs) };
    });
    return { text: "", answer: null, toolCalls };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.instances = null;
  }
}

/** A BFCL entry as an `Env` (reward 1 when every turn passes upstream's checkers, else 0). */
export function bfclEnv(options: BfclEnvOptions): BfclEnv {
  return new BfclEnv(options);
}
