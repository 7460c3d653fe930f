/**
 * @module policy/render/conversation
 * A token-level multi-turn conversation whose token stream only grows. Sampled ids are kept as
 * sampled (decoding and re-encoding is not the identity). New messages are appended as the
 * tokens the chat template puts after the n-th end-of-turn token, n being the end-of-turn
 * tokens already in the stream: rendering "with and without the new message and taking the
 * difference" would lose what the template writes after an end-of-turn token (ChatML's "\n").
 *
 * For prefix-stable templates the stream equals a one-shot render of the whole conversation
 * (up to its last end-of-turn token, when the sampled ids are the canonical ones). Templates that
 * are not prefix-stable (Qwen3 drops earlier reasoning and adds an empty think block to the last
 * assistant turn) are detected at every turn by comparing renders; the stream still grows (what
 * the model saw is what is trained on) and each turn records `prefixStable: false`, or, with
 * `requirePrefixStable`, the turn fails with E_POLICY_RENDER. See README "Token-level rendering".
 */
import type { ToolSpec } from "../../env/index.js";
import { SpadeError } from "../../errors.js";
import type { ChatMessage } from "../types.js";
import { parseAssistantTokens, type ParsedAssistant, type RawToolCall } from "./parse.js";
import type { ChatRenderer } from "./renderer.js";

/** One sampled turn as it entered the stream. */
export interface TokenTurn {
  /** Tokens appended before sampling: the first prompt, or observation/tool tokens plus the generation prompt (loss mask 0). */
  observationTokenIds: number[];
  /** Length of the stream when sampled: the prompt is `tokenIds.slice(0, promptLength)`. */
  promptLength: number;
  /** Sampled ids, stop token included when the sampler returned it (loss mask 1). */
  responseTokenIds: number[];
  /** Logprob of each sampled id, or null when the sampler gave none. */
  logprobs: number[] | null;
  /** Why sampling stopped (`stop`, `length`...). */
  stopReason: string;
  /** End-of-turn ids appended after a response that did not end with one (loss mask 0). */
  closingTokenIds: number[];
  /** The decoded response (stop tokens removed). */
  text: string;
  /** Tool calls with their argument JSON text verbatim. */
  toolCalls: RawToolCall[];
  /** Bodies of malformed `<tool_call>` blocks. */
  malformedToolCalls: string[];
  /** False when the template re-rendered earlier turns differently around this turn. */
  prefixStable: boolean;
}

/** A sampled response. */
export interface SampledResponse {
  tokenIds: readonly number[];
  logprobs: readonly number[] | null;
  stopReason: string;
}

/** Settings of a conversation. */
export interface TokenConversationOptions {
  /** Function tools, passed to the template on every render. */
  tools?: readonly ToolSpec[];
  /** Fail (E_POLICY_RENDER) as soon as a non-prefix-stable render is seen. Default false: record it. */
  requirePrefixStable?: boolean;
}

/** A growing token stream and the chat messages it stands for. */
export class TokenConversation {
  /** The chat-level conversation (tool-call arguments as the model wrote them). */
  readonly messages: ChatMessage[] = [];
  /** The token stream. */
  readonly tokenIds: number[] = [];
  /** Per stream token: 1 when sampled, 0 for prompt, observation and closing tokens. */
  readonly lossMask: number[] = [];
  /** Per stream token: its sampling logprob (0 where not sampled or not reported). */
  readonly logprobs: number[] = [];
  /** One entry per sampled turn. */
  readonly turns: TokenTurn[] = [];
  private pending: { observationTokenIds: number[]; prefixStable: boolean } | null = null;

  constructor(
    private readonly renderer: ChatRenderer,
    private readonly options: TokenConversationOptions = {},
  ) {}

  /** True once the stream ends with a generation prompt, waiting for a sample. */
  get awaitingSample(): boolean {
    return this.pending !== null;
  }

  /**
   * Appends messages (system, user, tool) and the generation prompt; returns the ids appended.
   * E_POLICY_RENDER when the template's render cannot continue the stream.
   */
  addMessages(messages: readonly ChatMessage[]): number[] {
    if (this.pending)
      throw new SpadeError(
        "E_CONFIG",
        "a conversation awaiting a sample cannot take more messages",
        { nextStep: "call addSample first" },
      );
    const before = [...this.messages];
    const after = [...before, ...messages];
    const tools = this.options.tools;
    const full = this.renderer.renderTokens(after, { tools, addGenerationPrompt: true });
    let appended = full;
    let prefixStable = true;
    if (this.tokenIds.length > 0) {
      const cut = this.afterNthEndOfTurn(full, this.countEndOfTurn(this.tokenIds));
      if (cut < 0) {
        throw new SpadeError(
          "E_POLICY_RENDER",
          "the chat template's render has fewer end-of-turn tokens than the stream already holds",
          {
            nextStep:
              "the template drops earlier turns; it cannot be used for token-level multi-turn sampling",
          },
        );
      }
      appended = full.slice(cut);
      const previous = this.renderer.render(before, { tools, addGenerationPrompt: false });
      prefixStable = this.renderer
        .render(after, { tools, addGenerationPrompt: true })
        .startsWith(previous);
    }
    this.checkStable(prefixStable);
    this.messages.push(...messages);
    this.push(appended, 0, null);
    this.pending = { observationTokenIds: appended, prefixStable };
    return appended;
  }

  /**
   * Records a sampled response and parses it. A response that does not end with an end-of-turn
   * id (cut by `max_tokens`, or a server that strips stop tokens) is closed with one, masked out.
   */
  addSample(sample: SampledResponse): ParsedAssistant {
    const pending = this.pending;
    if (!pending)
      throw new SpadeError("E_CONFIG", "addSample needs a generation prompt first", {
        nextStep: "call addMessages first",
      });
    const promptLength = this.tokenIds.length;
    const responseTokenIds = [...sample.tokenIds];
    this.push(responseTokenIds, 1, sample.logprobs);
    const last = responseTokenIds[responseTokenIds.length - 1];
    const closingTokenIds =
      last !== undefined && this.renderer.endOfTurnIds.includes(last)
        ? []
        : this.renderer.endOfTurnIds.slice(0, 1);
    this.push(closingTokenIds, 0, null);
    const parsed = parseAssistantTokens(
      responseTokenIds,
      (ids) => this.renderer.decode(ids),
      this.renderer.stopIds,
    );
    const prompt = this.renderer.render(this.messages, {
      tools: this.options.tools,
      addGenerationPrompt: true,
    });
    this.messages.push(parsed.message);
    const prefixStable =
      pending.prefixStable &&
      this.renderer
        .render(this.messages, { tools: this.options.tools, addGenerationPrompt: false })
        .startsWith(prompt);
    this.pending = null;
    this.turns.push({
      observationTokenIds: pending.observationTokenIds,
      promptLength,
      responseTokenIds,
      logprobs: sample.logprobs ? [...sample.logprobs] : null,
      stopReason: sample.stopReason,
      closingTokenIds,
      text: parsed.text,
      toolCalls: parsed.rawToolCalls,
      malformedToolCalls: parsed.malformedToolCalls,
      prefixStable,
    });
    this.checkStable(prefixStable);
    return parsed;
  }

  /**
   * The one-shot render of the conversation: with the generation prompt when awaiting a sample,
   * else cut right after its last end-of-turn token (where the stream ends).
   */
  oneShotTokenIds(): number[] {
    const full = this.renderer.renderTokens(this.messages, {
      tools: this.options.tools,
      addGenerationPrompt: this.awaitingSample,
    });
    if (this.awaitingSample) return full;
    const cut = this.afterNthEndOfTurn(full, this.countEndOfTurn(full));
    return cut < 0 ? full : full.slice(0, cut);
  }

  /** True when every turn so far was prefix-stable. */
  get prefixStable(): boolean {
    return this.turns.every((t) => t.prefixStable) && (this.pending?.prefixStable ?? true);
  }

  private checkStable(stable: boolean): void {
    if (!stable && this.options.requirePrefixStable) {
      throw new SpadeError(
        "E_POLICY_RENDER",
        "the chat template is not prefix-stable: it re-renders earlier turns differently",
        {
          nextStep:
            "use a prefix-stable template (pass one that keeps earlier turns as they were), or allow it and train on the growing stream",
        },
      );
    }
  }

  private push(ids: readonly number[], mask: 0 | 1, logprobs: readonly number[] | null): void {
    ids.forEach((id, i) => {
      this.tokenIds.push(id);
      this.lossMask.push(mask);
      this.logprobs.push(logprobs?.[i] ?? 0);
    });
  }

  private countEndOfTurn(ids: readonly number[]): number {
    return ids.reduce((n, id) => n + (this.renderer.endOfTurnIds.includes(id) ? 1 : 0), 0);
  }

  /** Index just after the n-th end-of-turn id of `ids` (0 when n is 0), or -1 when there are fewer. */
  private afterNthEndOfTurn(ids: readonly number[], n: number): number {
    if (n === 0) return 0;
    let seen = 0;
    for (let i = 0; i < ids.length; i++)
      if (this.renderer.endOfTurnIds.includes(ids[i] as number) && ++seen === n) return i + 1;
    return -1;
  }
}
