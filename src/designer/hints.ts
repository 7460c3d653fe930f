/**
 * @module designer/hints
 * Where the privileged hint comes from. `model` (the default, the reference's way): a second,
 * untrained call of the model reads the program and writes one hint for the environment, with up
 * to 3 calls (`hint_generator.py:SelfHintGenerator.generate_hint_with_retry`); `withFixedHint`
 * then serves it as `hint()`. `program`: the environment's own `hint()`, per episode.
 * The model call is injected, so this module depends on no backend.
 */
import { MAX_HINT_CHARS, type Env, type EnvMeta } from "../env/index.js";
import { describeError, isSpadeError, SpadeError } from "../errors.js";
import { detectProgramLanguage } from "../sandbox/index.js";
import { stripThinking } from "./extract.js";
import type { DesignerMessage } from "./types.js";

/** Where hints come from: a model that reads the program, or the program's `hint()`. */
export type HintMode = "model" | "program";

/** Every hint mode, the default first. */
export const HINT_MODES: readonly HintMode[] = Object.freeze(["model", "program"]);

/**
 * Calls of the hint writer before an environment is left without a hint: the reference's
 * `max_retries = 3` (`hint_generator.py:SelfHintGenerator.generate_hint_with_retry`).
 */
export const DEFAULT_HINT_ATTEMPTS = 3;

/**
 * The hint writer's nucleus sampling. The reference's self-hint call passes only temperature and
 * max tokens, so `model_adapter.py:SlimeModelAdapter.generate_async`'s own default `top_p = 0.9`
 * applies, and top-k stays the adapter's `default_sampling_params` value: Slime's
 * `--rollout-top-k`, -1 (off), which the 30B scripts do not set. The hint writer sends no top-k.
 */
export const HINT_TOP_P = 0.9;

/** Samples the hint writer's answer for a conversation; `attempt` counts the calls from 0. */
export type HintCompleteFn = (
  messages: readonly DesignerMessage[],
  attempt: number,
) => Promise<string>;

const GAME_HINT_SYSTEM =
  "You read the source code of a text game that a language-model agent will play. The agent sees only the game's " +
  "observations, never the code, and replies with its actions in \\boxed{...}. Your hint is added to the agent's first " +
  "observation.\n\n" +
  "Work out from the code what the agent is asked to do, how the game decides a win, and which reply format it accepts. " +
  "Then write a hint of one to three sentences (under 100 words) that gives the key idea or strategy for this game and " +
  "the expected answer format. Speak about what the agent can see, not about the code (no variable or method names). " +
  "Be specific to this game: no generic advice such as 'think carefully'. Explain the approach; do not give the final answer.\n\n" +
  "Reply with the hint text only: no label, no markdown, no JSON.";

const TOOL_HINT_SYSTEM =
  "You read the source code of a tool-use environment that a language-model agent will work in. The agent sees only the " +
  "user's request and the results of its tool calls, never the code. Your hint is added to the agent's first observation.\n\n" +
  "Work out from the code which kinds of tools the task needs, in which order their results feed each other, which tools " +
  "are not needed, and how success is judged. Then write a hint of two or three sentences (under 100 words) describing " +
  "the plan in terms of the tools' roles. Tell the agent to look specific values up with the tools rather than assume " +
  "them, to ask or decline when a request cannot be served, and to finish only when everything is done. Never write " +
  "concrete values from the code or its data (ids, names, amounts, dates, paths): use placeholders such as <order_id>. " +
  "Do not write a call-by-call walkthrough with the arguments filled in.\n\n" +
  "Reply with the hint text only: no label, no markdown, no JSON.";

/** The hint writer's conversation for a program; the tool-use variant when `meta` declares tools. */
export function buildHintPrompt(source: string, meta: Pick<EnvMeta, "tools">): DesignerMessage[] {
  const toolUse = meta.tools.length > 0;
  return [
    { role: "system", content: toolUse ? TOOL_HINT_SYSTEM : GAME_HINT_SYSTEM },
    {
      role: "user",
      content: `The environment's program:\n\`\`\`${detectProgramLanguage(source)}\n${source.trimEnd()}\n\`\`\``,
    },
  ];
}

/** The outcome of reading the hint writer's answer. */
export type HintParse =
  | { ok: true; hint: string; truncated: boolean }
  | { ok: false; code: "E_HINT_EMPTY"; message: string };

/**
 * The hint in a hint writer's answer: reasoning removed; a JSON object `{"hint": ...}` (bare or
 * fenced) is unwrapped; a leading `Hint:` label and a single surrounding fence or pair of quotes
 * are dropped; whitespace runs collapse to one space. Longer than `MAX_HINT_CHARS`: cut at the
 * last sentence end (else word break) that fits, and `truncated` is true. Empty: `E_HINT_EMPTY`.
 */
export function parseHintAnswer(answer: string): HintParse {
  let text = stripThinking(answer).trim();
  const fence = wholeFenceBody(text);
  if (fence !== null) text = fence.trim();
  if (text.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (
        parsed &&
        typeof parsed === "object" &&
        typeof (parsed as { hint?: unknown }).hint === "string"
      )
        text = (parsed as { hint: string }).hint.trim();
    } catch {
      // Not JSON after all: keep the text as it is.
    }
  }
  // `\s*(?:\*+\s*)?`, not the equivalent `\s*\**\s*`: two adjacent `\s*` backtrack
  // quadratically over a long run of spaces with no colon after it.
  text = text.replace(/^\**\s*hint\s*(?:\*+\s*)?:\s*\**\s*/i, "").trim();
  if (text.length >= 2 && /^["'“]/.test(text) && /["'”]$/.test(text))
    text = text.slice(1, -1).trim();
  text = text.replace(/\s+/g, " ");
  if (text === "")
    return { ok: false, code: "E_HINT_EMPTY", message: "the hint writer's answer holds no hint" };
  if (text.length <= MAX_HINT_CHARS) return { ok: true, hint: text, truncated: false };
  const head = text.slice(0, MAX_HINT_CHARS);
  const sentenceEnd = Math.max(
    head.lastIndexOf(". "),
    head.lastIndexOf("! "),
    head.lastIndexOf("? "),
  );
  const cut =
    sentenceEnd > 0
      ? sentenceEnd + 1
      : head.lastIndexOf(" ") > 0
        ? head.lastIndexOf(" ")
        : MAX_HINT_CHARS;
  return { ok: true, hint: head.slice(0, cut).trim(), truncated: true };
}

/**
 * The body of `text` when all of it is one fenced block: what `^```[\w-]*\s*\n([\s\S]*?)\n?```$`
 * captures, else null. That regex retries its lazy body from every newline of the opening
 * line's whitespace (quadratic); the greedy opening alone is linear and gives the same body.
 */
function wholeFenceBody(text: string): string | null {
  const open = /^```[\w-]*\s*\n/.exec(text);
  if (!open || !text.endsWith("```")) return null;
  const body = text.slice(open[0].length, -3);
  return body.endsWith("\n") ? body.slice(0, -1) : body;
}

/** A model-written hint, as a record: what was asked, what came back, what was kept. */
export interface ModelHintRecord {
  messages: DesignerMessage[];
  /** The raw answer; null when the call failed. */
  answer: string | null;
  /** The hint, or null when none could be had. */
  hint: string | null;
  /** Why there is no hint: `E_HINT_EMPTY`, or the failed call's error code. */
  failureCode: string | null;
  failure: string | null;
  /** Calls made (1 when the first answer held a hint). */
  attempts: number;
}

/**
 * Asks the hint writer for a hint of `source`, calling it again (up to `attempts` calls in all,
 * default 3) while a call fails (a SpadeError other than E_CANCELLED: the HTTP layer has already
 * retried it) or answers no hint. The last failure is recorded, not thrown; other errors propagate.
 */
export async function writeModelHint(
  source: string,
  meta: Pick<EnvMeta, "tools">,
  complete: HintCompleteFn,
  options: { attempts?: number } = {},
): Promise<ModelHintRecord> {
  const attempts = options.attempts ?? DEFAULT_HINT_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new SpadeError("E_CONFIG", `hint attempts must be an integer >= 1 (got ${attempts})`, {
      nextStep: "set hintRetries to 1 or more",
    });
  const messages = buildHintPrompt(source, meta);
  let last: ModelHintRecord = {
    messages,
    answer: null,
    hint: null,
    failureCode: null,
    failure: null,
    attempts: 0,
  };
  for (let attempt = 0; attempt < attempts; attempt++) {
    let answer: string;
    try {
      answer = await complete(messages, attempt);
    } catch (err) {
      if (!isSpadeError(err) || err.code === "E_CANCELLED") throw err;
      last = {
        messages,
        answer: null,
        hint: null,
        failureCode: err.code,
        failure: describeError(err),
        attempts: attempt + 1,
      };
      continue;
    }
    const parsed = parseHintAnswer(answer);
    if (parsed.ok)
      return {
        messages,
        answer,
        hint: parsed.hint,
        failureCode: null,
        failure: null,
        attempts: attempt + 1,
      };
    last = {
      messages,
      answer,
      hint: null,
      failureCode: parsed.code,
      failure: parsed.message,
      attempts: attempt + 1,
    };
  }
  return last;
}

/**
 * `env` with `hint()` answering `hint` (a model-written hint) instead of the program's own.
 * Every other method is the environment's. E_CONFIG when the hint is empty or too long.
 */
export function withFixedHint(env: Env, hint: string): Env {
  if (typeof hint !== "string" || hint.trim() === "" || hint.length > MAX_HINT_CHARS) {
    throw new SpadeError(
      "E_CONFIG",
      `a fixed hint must be a non-empty string of at most ${MAX_HINT_CHARS} characters`,
      {
        nextStep: "pass the hint returned by parseHintAnswer or writeModelHint",
      },
    );
  }
  return {
    get meta() {
      return env.meta;
    },
    reset: (seed) => env.reset(seed),
    step: (action) => env.step(action),
    hint: async () => hint,
    solve: () => env.solve(),
    close: () => env.close(),
  };
}
