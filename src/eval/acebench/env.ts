/**
 * @module eval/acebench/env
 * ACEBench agent entries as native `Env`s. A step is one agent message, routed as upstream's
 * dialogue loop routes it: multi-step entries send every message to execution; multi-turn entries
 * send calls to execution and anything else to the simulated user. The episode ends when a
 * message says "finish conversation" (from the third message on) or the message budget runs out;
 * its reward is 1 when the final state passes upstream's end-to-end check, else 0.
 */
import {
  actionFromOracle,
  type Action,
  type Env,
  type EnvMeta,
  type JsonObject,
  type ResetResult,
  type StepResult,
  type ToolResult,
} from "../../env/index.js";
import { SpadeError } from "../../errors.js";
import { parseJsonPy, pyEquals, pyRepr, type PyValue, stripWhitespace } from "../python/index.js";
import {
  callFromToolCall,
  decodeCalls,
  isExecutionMessageMultiTurn,
  renderCalls,
} from "./calls.js";
import { scoreEntry, type MissingClassRule } from "./checker.js";
import { firstPath, type AceEntry } from "./data.js";
import { agentRules, entryTools, taskHeading } from "./tools.js";
import { AGENT_GREETING, type DialogueTurn, type UserSimulator } from "./user.js";
import { AceWorld, MULTI_TURN_ERROR_TEXT, type ApiCall } from "./world.js";
import { clipHint } from "../episode.js";

/** Options of `AceBenchEnv`. */
export interface AceEnvOptions {
  /** The simulated user; required for multi-turn entries. */
  user?: UserSimulator;
  /** Most dialogue messages (agent, user and execution together), upstream's `max_dialog_turns`. Default 40. */
  maxMessages?: number;
  /** How the end-to-end check treats a class missing from the state. Default `fail`. */
  missingClass?: MissingClassRule;
}

/** Upstream's answer to a multi-step message that is not a decodable call list. */
export const NOT_A_CALL_REPLY =
  "Please do not ask me any questions, use the known conditions to solve the problem";

const FINISH = "finish conversation";

/** The text an agent sees for one result string: upstream `json.loads` it when it can. */
function display(result: string): PyValue {
  try {
    return parseJsonPy(result);
  } catch {
    return result;
  }
}

/** One ACEBench agent entry as an environment. */
export class AceBenchEnv implements Env {
  readonly meta: EnvMeta;
  private world: AceWorld;
  private messageIndex = 0;
  private process: string[] = [];
  private dialogue: DialogueTurn[] = [];
  private oracleCursor = 0;
  private phase: "fresh" | "running" | "done" | "closed" = "fresh";
  private readonly oraclePath: string[];
  private readonly maxMessages: number;

  constructor(
    readonly entry: AceEntry,
    private readonly options: AceEnvOptions = {},
  ) {
    if (entry.category === "multi_turn" && !options.user) {
      throw new SpadeError(
        "E_CONFIG",
        `ACEBench ${entry.id} is multi-turn and needs a simulated user`,
        { nextStep: "pass options.user" },
      );
    }
    this.maxMessages = options.maxMessages ?? 40;
    if (!Number.isInteger(this.maxMessages) || this.maxMessages < 2)
      throw new SpadeError("E_CONFIG", "maxMessages must be an integer >= 2");
    this.oraclePath = firstPath(entry.mileStone)
      .map(stripWhitespace)
      .filter((m) => decodeCalls(m) !== null);
    this.world = new AceWorld(entry.lang, entry.involvedClasses, entry.initialConfig);
    this.meta = {
      name: `acebench-${entry.lang}-${entry.id.replace(/_/g, "-")}`,
      skill: entry.category === "multi_step" ? "Multi-Step Workflows" : "API Orchestration",
      description: `ACEBench ${entry.lang} ${entry.id}: ${entry.question.slice(0, 160)}`,
      maxTurns: Math.ceil(this.maxMessages / 2),
      tools: entryTools(entry),
    };
  }

  async reset(_seed: number): Promise<ResetResult> {
    this.guard(true);
    const { lang, involvedClasses, initialConfig } = this.entry;
    this.world = new AceWorld(lang, involvedClasses, initialConfig);
    this.messageIndex = 0;
    this.process = [];
    this.oracleCursor = 0;
    this.dialogue = [{ role: "agent", content: AGENT_GREETING[lang] }];
    this.phase = "running";
    const rules = agentRules(lang, involvedClasses);
    if (this.entry.category === "multi_step") {
      return {
        observation: `${rules}\n\n${taskHeading(lang)}\n${this.entry.question}`,
        info: this.info(),
      };
    }
    const opening = await (this.options.user as UserSimulator).reply(this.dialogue);
    this.dialogue.push({ role: "user", content: opening });
    return { observation: `${rules}\n\n${opening}`, info: this.info() };
  }

  async step(action: Action): Promise<StepResult> {
    this.guard(false);
    const calls: ApiCall[] | null =
      action.toolCalls.length > 0 ? action.toolCalls.map(callFromToolCall) : null;
    const at = this.messageIndex++;
    if (at > 1 && action.text.includes(FINISH)) return this.end("terminated", "");
    if (this.messageIndex >= this.maxMessages) return this.end("truncated", "");
    if (this.entry.category === "multi_step")
      return this.execute(action, calls ?? decodeCalls(action.text));
    if (calls || isExecutionMessageMultiTurn(action.text))
      return this.execute(action, calls ?? decodeCalls(action.text));
    return this.talk(action.text);
  }

  async hint(): Promise<string> {
    this.guard(false, true);
    const text =
      this.oraclePath.length > 0
        ? `One correct sequence of calls: ${this.oraclePath.join(" ")}`
        : "Do what the task asks, then say finish conversation.";
    return clipHint(text);
  }

  async solve(): Promise<Action> {
    this.guard(false, true);
    const next = this.oraclePath[this.oracleCursor];
    return actionFromOracle({ text: next ?? FINISH });
  }

  async close(): Promise<void> {
    this.phase = "closed";
  }

  /** The episode's scores so far: the current final state and the messages sent to execution. */
  score(): ReturnType<typeof scoreEntry> {
    return scoreEntry(this.entry, this.world.savedState(), this.process, this.options.missingClass);
  }

  /** The messages sent to execution so far (what process accuracy is computed on). */
  processMessages(): readonly string[] {
    return this.process;
  }

  private guard(resetting: boolean, any = false): void {
    if (this.phase === "closed")
      throw new SpadeError("E_ENV_CONTRACT", `ACEBench env ${this.meta.name} is closed`);
    if (resetting || any) return;
    if (this.phase !== "running")
      throw new SpadeError(
        "E_ENV_CONTRACT",
        `step() on ACEBench env ${this.meta.name} ${this.phase === "fresh" ? "before reset()" : "after the episode ended"}`,
      );
  }

  private info(extra: JsonObject = {}): JsonObject {
    return {
      id: this.entry.id,
      lang: this.entry.lang,
      category: this.entry.category,
      messageIndex: this.messageIndex,
      ...extra,
    };
  }

  private end(
    how: "terminated" | "truncated",
    observation: string,
    toolResults?: ToolResult[],
  ): StepResult {
    this.phase = "done";
    const s = this.score();
    const info = this.info({
      endedBy: how,
      endToEnd: s.endToEnd,
      process: s.process,
      errors: s.errors,
    });
    return {
      observation,
      reward: s.endToEnd ? 1 : 0,
      terminated: how === "terminated",
      truncated: how === "truncated",
      info,
      ...(toolResults ? { toolResults } : {}),
    };
  }

  private execute(action: Action, calls: ApiCall[] | null): StepResult {
    const message = action.toolCalls.length > 0 && calls ? renderCalls(calls) : action.text;
    this.process.push(message);
    if (stripWhitespace(message) === this.oraclePath[this.oracleCursor]) this.oracleCursor++;
    let shown: PyValue[] | string;
    let perCall: string[] = [];
    let abortedBy: string | null = null;
    if (calls === null) {
      shown = NOT_A_CALL_REPLY;
    } else {
      const mode = this.entry.category;
      const run = this.world.execute(calls, mode);
      abortedBy = run.abortedBy;
      // Upstream iterates the aborted message's text character by character.
      shown =
        abortedBy !== null ? [...MULTI_TURN_ERROR_TEXT].map(display) : run.results.map(display);
      perCall = calls.map((_, i) =>
        abortedBy !== null ? MULTI_TURN_ERROR_TEXT : (run.results[i] as string),
      );
    }
    const at = this.messageIndex++;
    const toolResults =
      action.toolCalls.length > 0
        ? action.toolCalls.map((tc, i) => ({
            id: tc.id,
            content: textOf(display(perCall[i] ?? NOT_A_CALL_REPLY)),
          }))
        : undefined;
    const observation = toolResults ? "" : typeof shown === "string" ? shown : pyRepr(shown);
    if (at > 1 && Array.isArray(shown) && shown.some((x) => pyEquals(x, FINISH)))
      return this.end("terminated", observation, toolResults);
    if (this.messageIndex >= this.maxMessages)
      return this.end("truncated", observation, toolResults);
    const info = this.info({
      recipient: "execution",
      ...(abortedBy !== null ? { abortedBy } : {}),
    });
    return {
      observation,
      reward: 0,
      terminated: false,
      truncated: false,
      info,
      ...(toolResults ? { toolResults } : {}),
    };
  }

  private async talk(text: string): Promise<StepResult> {
    this.dialogue.push({ role: "agent", content: text });
    const reply = await (this.options.user as UserSimulator).reply(this.dialogue);
    this.dialogue.push({ role: "user", content: reply });
    const at = this.messageIndex++;
    if (at > 1 && reply.includes(FINISH)) return this.end("terminated", reply);
    if (this.messageIndex >= this.maxMessages) return this.end("truncated", reply);
    return {
      observation: reply,
      reward: 0,
      terminated: false,
      truncated: false,
      info: this.info({ recipient: "user" }),
    };
  }
}

/** A displayed result as text: a str as is, anything else as Python prints it. */
function textOf(v: PyValue): string {
  return typeof v === "string" ? v : pyRepr(v);
}
