/**
 * @module loop/tinker-policy
 * Token-level self-play: a `LoopPolicy` over a Tinker-compatible sampler and the model's own chat
 * rendering. Designer completions are rendered with the chat template, sampled, and kept with
 * their prompt ids, sampled ids and logprobs; agents are token agents. `useWeights` switches
 * every later sample to newly saved weights (the loop calls it after each training step).
 */
import { SpadeError } from "../errors.js";
import {
  REFERENCE_CONTEXT_RESERVE_TOKENS,
  tinkerSampler,
  tokenAgent,
  type ChatRenderer,
  type TinkerHttp,
  type TinkerSampler,
  type TokenSampleRequest,
} from "../policy/index.js";
import type { LoopPolicy } from "./policy.js";

/** Settings of a token-level loop policy. */
export interface TinkerLoopPolicyOptions {
  /** The engine's HTTP client (one session, shared with the trainer). */
  http: TinkerHttp;
  /** The base model exactly as the engine names it. */
  baseModel: string;
  /** The model's chat template and tokenizer. */
  renderer: ChatRenderer;
  /** Saved weights to sample from at first; unset: the base model. */
  samplerPath?: string;
  /**
   * Agents' context budget in tokens (prompt plus answer). Default the token agent's (32,768), the
   * reference's `--spade-max-context-length`; the last `REFERENCE_CONTEXT_RESERVE_TOKENS` are never used.
   */
  maxContextTokens?: number;
  /** Sampling parameters besides temperature and seed (e.g. top-p, top-k). */
  sampling?: Pick<TokenSampleRequest, "topP" | "topK">;
}

/** A token-level loop policy; `samplerPath` is what it samples from now (null: the base model). */
export type TinkerLoopPolicy = LoopPolicy & {
  useWeights(samplerPath: string): void;
  readonly samplerPath: string | null;
};

/** Ids with the trailing stop ids removed (the text of a turn ends before its end-of-turn token). */
function withoutStop(ids: readonly number[], stopIds: readonly number[]): number[] {
  let end = ids.length;
  while (end > 0 && stopIds.includes(ids[end - 1] as number)) end--;
  return ids.slice(0, end);
}

/** Creates a token-level loop policy (see the module comment). */
export function tinkerLoopPolicy(options: TinkerLoopPolicyOptions): TinkerLoopPolicy {
  const { http, renderer } = options;
  const make = (samplerPath: string | null): TinkerSampler =>
    tinkerSampler({
      baseURL: http.baseURL,
      baseModel: options.baseModel,
      ...(samplerPath ? { modelPath: samplerPath } : {}),
      http,
    });
  let samplerPath = options.samplerPath ?? null;
  let sampler = make(samplerPath);

  return {
    get samplerPath() {
      return samplerPath;
    },
    useWeights(path) {
      if (path === samplerPath) return;
      // A new sampling session on the new weights; requests already in flight finish on the old one.
      samplerPath = path;
      sampler = make(path);
    },
    async complete(messages, s) {
      const promptTokenIds = renderer.renderTokens(messages, { addGenerationPrompt: true });
      const [sample] = await sampler.sample({
        ...options.sampling,
        promptTokenIds,
        maxTokens: s.maxTokens,
        stopTokenIds: renderer.stopIds,
        temperature: s.temperature,
        ...(s.topP !== undefined ? { topP: s.topP } : {}),
        ...(s.topK !== undefined ? { topK: s.topK } : {}),
        seed: s.seed,
        signal: s.signal,
      });
      if (!sample)
        throw new SpadeError("E_POLICY_OUTPUT", "the sampler answered without a sequence", {
          nextStep: "check the sampling server",
        });
      const text = renderer.decode(withoutStop(sample.tokenIds, renderer.stopIds));
      return {
        text,
        tokens: { promptTokenIds, tokenIds: sample.tokenIds, logprobs: sample.logprobs },
      };
    },
    agent: (s) =>
      tokenAgent({
        sampler,
        renderer,
        maxTokens: s.maxTokens,
        sampling: {
          ...options.sampling,
          temperature: s.temperature,
          ...(s.topP !== undefined ? { topP: s.topP } : {}),
          ...(s.topK !== undefined ? { topK: s.topK } : {}),
          seed: s.seed,
        },
        signal: s.signal,
        reserveTokens: REFERENCE_CONTEXT_RESERVE_TOKENS,
        ...(options.maxContextTokens !== undefined
          ? { maxContextTokens: options.maxContextTokens }
          : {}),
      }),
  };
}
