/**
 * @module eval/acebench/ns-env
 * One ACEBench normal or special entry as a single-turn `Env`: upstream's system prompt and
 * user message, the model's one reply scored by upstream's checker (reward 1 when valid).
 */
import { SpadeError } from "../../errors.js";
import { makeAction, type Action, type ResetResult } from "../../env/index.js";
import { type Graded, OneStepEnv } from "../episode.js";
import { pyRepr } from "../python/index.js";
import { checkNormalItem, checkSpecialItem, goldOutput, type NsEntry } from "./categories.js";
import {
  NORMAL_SYSTEM_PROMPT,
  PREFERENCE_SYSTEM_PROMPT,
  SPECIAL_SYSTEM_PROMPT,
  USER_PROMPT,
} from "./ns-prompts.js";

/** Upstream's `str.format` on these prompts: each named field replaced, `{{`/`}}` unescaped. */
function format(template: string, fields: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (m, name: string | undefined) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    const v = fields[name!];
    if (v === undefined)
      throw new SpadeError("E_CONFIG", `prompt field {${name}} has no value`, {
        nextStep: "report this: the ACEBench prompt and entry do not match",
      });
    return v;
  });
}

/** The system prompt upstream's `single_turn_inference` sends for this entry. */
export function nsSystemPrompt(entry: NsEntry): string {
  const fn = pyRepr(entry.functions);
  if (entry.category.startsWith("special"))
    return format(SPECIAL_SYSTEM_PROMPT, { time: entry.time, function: fn });
  if (entry.category === "normal_preference")
    return format(PREFERENCE_SYSTEM_PROMPT, { profile: entry.profile, function: fn });
  return format(NORMAL_SYSTEM_PROMPT, { time: entry.time, function: fn });
}

/** The user message: `Conversation history 1..t:` and the entry's dialogue. */
export function nsUserPrompt(entry: NsEntry): string {
  return format(USER_PROMPT, { question: entry.question });
}

/**
 * The reply as the SPADE reference's patched ACEBench reads it (`_patch_strip_reasoning`): the
 * text after the last `</think>`, stripped.
 */
export function answerAfterThinking(text: string): string {
  return (text.split("</think>").at(-1) ?? "").trim();
}

/** A single-turn environment over one normal or special entry. */
export class AceNsEnv extends OneStepEnv {
  constructor(readonly entry: NsEntry) {
    const description = `ACEBench ${entry.category} entry ${entry.id}`;
    super(entry.id, { name: "acebench-ns", skill: "Tool Use", description });
  }

  /** The user message (the system prompt is `nsSystemPrompt`, given to the agent). */
  protected async start(_seed: number): Promise<ResetResult> {
    return { observation: nsUserPrompt(this.entry), info: { id: this.entry.id } };
  }

  /** Scores the one reply with upstream's checker. */
  protected async grade(action: Action): Promise<Graded> {
    const special = this.entry.category.startsWith("special");
    const reply = answerAfterThinking(action.text);
    const { valid, errorType, error } = special
      ? checkSpecialItem(this.entry, reply)
      : checkNormalItem(this.entry, reply);
    return { correct: valid, info: { id: this.entry.id, valid, errorType, error } };
  }

  async hint(): Promise<string> {
    return `A correct answer is: ${goldOutput(this.entry)}`;
  }

  /** The ground truth written as a reply (which upstream's checker does not always accept). */
  async solve(): Promise<Action> {
    return makeAction(goldOutput(this.entry));
  }
}
