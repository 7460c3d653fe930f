/**
 * @module policy/token-agent
 * An episode agent over a token sampler and the model's own chat rendering: the conversation is a
 * growing token stream (see render/conversation.ts), so what is trained on is exactly what was
 * sampled. Enforces a context budget in tokens and records ids, logprobs and the loss mask.
 */
import type { Action } from "../env/index.js";
import { SpadeError } from "../errors.js";
import {
  DEFAULT_SYSTEM_PROMPT,
  recordTurnSample,
  observationMessages,
  type ChatAgentTurn,
  type ChatTrace,
  type TurnSample,
} from "./chat-agent.js";
import { TokenConversation, type ChatRenderer, type TokenTurn } from "./render/index.js";
import type { TokenSampler, TokenSampleRequest } from "./token-types.js";
import type { ChatMessage } from "./types.js";

/** Default of `maxContextTokens`. */
export const DEFAULT_MAX_CONTEXT_TOKENS = 32_768;
/** Default of `maxTokens`. */
export const DEFAULT_MAX_TOKENS_PER_TURN = 2_048;
/**
 * The reference's `min_generation_tokens` (`spade/core/orchestrator.py`, `play_game_async` and
 * `_play_game_tool_use_async`): a turn starts only while more than 64 tokens of the context are
 * left, and its answer stops 64 tokens short of the end. Self-play agents keep it (`reserveTokens`).
 */
export const REFERENCE_CONTEXT_RESERVE_TOKENS = 64;

/** Settings of a token agent. */
export interface TokenAgentOptions {
  sampler: TokenSampler;
  renderer: ChatRenderer;
  /** The system message; null: none. Default `DEFAULT_SYSTEM_PROMPT`. */
  systemPrompt?: string | null;
  /**
   * Budget of the whole stream (prompt plus answer) in tokens: a turn whose prompt leaves no more
   * than `reserveTokens` of it ends the episode with E_POLICY_CONTEXT; otherwise the answer may
   * use what is left but `reserveTokens`. Default 32,768.
   */
  maxContextTokens?: number;
  /** Tokens of the budget never used (`REFERENCE_CONTEXT_RESERVE_TOKENS` in self-play). Default 0. */
  reserveTokens?: number;
  /** Most tokens sampled per turn. Default 2,048. */
  maxTokens?: number;
  /** Sampling parameters of every turn. Default: the sampler's. */
  sampling?: Pick<TokenSampleRequest, "temperature" | "topP" | "topK" | "seed">;
  /** End the episode (E_POLICY_RENDER) when the template is not prefix-stable. Default false: record it. */
  requirePrefixStable?: boolean;
  /** Cancels the agent's requests; they reject with E_CANCELLED. */
  signal?: AbortSignal;
}

/** The token stream of an episode, aligned: ids, loss mask (1 = sampled), sampling logprobs (0 where not sampled). */
export interface TokenStream {
  tokenIds: number[];
  lossMask: number[];
  logprobs: number[];
}

/**
 * The record of a token agent's episode: the chat view (`messages`, `samplesByTurn`, where
 * `promptTokenIds` is null because the prompt of turn t is `stream.tokenIds.slice(0,
 * turns[t].promptLength)`), the whole stream, and per-turn details.
 */
export interface TokenTrace extends ChatTrace {
  stream: TokenStream;
  turns: TokenTurn[];
  /** False when some turn's render was not prefix-stable (see README "Token-level rendering"). */
  prefixStable: boolean;
}

/** An episode agent that keeps its token conversation. Create one per episode. */
export type TokenAgent = ((turn: ChatAgentTurn) => Promise<Action>) & {
  /** The conversation, once the first turn has started it. */
  readonly conversation: () => TokenConversation | null;
  /** A snapshot of what was sampled, for storing and training. */
  trace(): TokenTrace;
};

/** The stream's loss mask with the sampled tokens of masked turns (malformed tool calls) set to 0. */
function maskedLossMask(
  conversation: TokenConversation | null,
  samplesByTurn: readonly TurnSample[],
): number[] {
  const mask = [...(conversation?.lossMask ?? [])];
  samplesByTurn.forEach((s, i) => {
    const turn = conversation?.turns[i];
    if (!s.masked || !turn) return;
    mask.fill(0, turn.promptLength, turn.promptLength + turn.responseTokenIds.length);
  });
  return mask;
}

/** Creates a token agent for one episode. */
export function tokenAgent(options: TokenAgentOptions): TokenAgent {
  const maxContextTokens = options.maxContextTokens ?? DEFAULT_MAX_CONTEXT_TOKENS;
  const reserveTokens = options.reserveTokens ?? 0;
  if (!Number.isInteger(reserveTokens) || reserveTokens < 0)
    throw new SpadeError(
      "E_CONFIG",
      `reserveTokens must be an integer >= 0 (got ${reserveTokens})`,
    );
  const samplesByTurn: TurnSample[] = [];
  let conversation: TokenConversation | null = null;

  const act = async (turn: ChatAgentTurn): Promise<Action> => {
    let messages: ChatMessage[];
    if (!conversation) {
      conversation = new TokenConversation(options.renderer, {
        tools: turn.env.meta.tools,
        requirePrefixStable: options.requirePrefixStable,
      });
      const system =
        options.systemPrompt === undefined ? DEFAULT_SYSTEM_PROMPT : options.systemPrompt;
      messages = [
        ...(system === null ? [] : [{ role: "system" as const, content: system }]),
        { role: "user", content: turn.observation },
      ];
    } else {
      messages = observationMessages(conversation.messages[conversation.messages.length - 1], turn);
    }
    conversation.addMessages(messages);
    const promptLength = conversation.tokenIds.length;
    const left = maxContextTokens - promptLength;
    if (left <= reserveTokens) {
      throw new SpadeError(
        "E_POLICY_CONTEXT",
        `the conversation holds ${promptLength} tokens at turn ${turn.turn}, the budget is ${maxContextTokens}${reserveTokens > 0 ? ` with ${reserveTokens} kept free` : ""}`,
        {
          nextStep: "raise maxContextTokens, or give the environment fewer turns",
        },
      );
    }
    const [sample] = await options.sampler.sample({
      ...options.sampling,
      promptTokenIds: conversation.tokenIds,
      maxTokens: Math.min(options.maxTokens ?? DEFAULT_MAX_TOKENS_PER_TURN, left - reserveTokens),
      stopTokenIds: options.renderer.stopIds,
      signal: options.signal,
    });
    if (!sample)
      throw new SpadeError("E_POLICY_OUTPUT", "the sampler answered without a sequence", {
        nextStep: "check the sampling server",
      });
    const parsed = conversation.addSample(sample);
    recordTurnSample(
      samplesByTurn,
      {
        turn: turn.turn,
        promptTokenIds: null,
        promptLogprobs: null,
        tokenIds: [...sample.tokenIds],
        logprobs: sample.logprobs ? [...sample.logprobs] : null,
        tokens: null,
        finishReason: sample.stopReason,
        usage: { promptTokens: promptLength, completionTokens: sample.tokenIds.length },
      },
      parsed,
      "frequent ones point at the chat template or the sampling settings",
    );
    return parsed.action;
  };

  return Object.assign(act, {
    conversation: () => conversation,
    trace: (): TokenTrace => ({
      model: options.sampler.model,
      messages: structuredClone(conversation?.messages ?? []),
      samplesByTurn: structuredClone(samplesByTurn),
      stream: {
        tokenIds: [...(conversation?.tokenIds ?? [])],
        lossMask: maskedLossMask(conversation, samplesByTurn),
        logprobs: [...(conversation?.logprobs ?? [])],
      },
      turns: structuredClone(conversation?.turns ?? []),
      prefixStable: conversation?.prefixStable ?? true,
    }),
  });
}
