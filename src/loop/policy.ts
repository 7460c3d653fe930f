/**
 * @module loop/policy
 * How the loop samples from the model, whatever the backend: a designer completion for a
 * conversation, and an agent for an episode. Chat-level backends (OpenAI-compatible servers,
 * local GGUF) give text; token-level ones (a Tinker-compatible sampler) also give the tokens and
 * logprobs that training needs.
 */
import type { Json } from "../env/index.js";
import { chatAgent, type ChatBackend, type ChatMessage } from "../policy/index.js";
import type { Agent } from "../rollout/index.js";

/** Sampling settings of one request. */
export interface LoopSampling {
  temperature: number;
  maxTokens: number;
  /** Derived from the request's position in the run (see loop/keys.ts). */
  seed: number;
  signal?: AbortSignal;
}

/** A designer completion: its text and, when the backend gives them, its tokens and logprobs. */
export interface LoopCompletion {
  text: string;
  tokens: Json | null;
}

/** The model as the loop sees it. */
export interface LoopPolicy {
  /** Samples one completion of a designer (or hint-writer) conversation. */
  complete(messages: readonly ChatMessage[], sampling: LoopSampling): Promise<LoopCompletion>;
  /** A fresh agent for one episode. */
  agent(sampling: LoopSampling): Agent;
  /**
   * Backends that sample from a training engine: sample from these saved weights from now on.
   * The loop calls it after each training step (so sampling stays on-policy) and on resume.
   */
  useWeights?(samplerPath: string): void;
}

/** A loop policy over a chat-level backend. Tokens are kept when the server returns them (vLLM). */
export function chatLoopPolicy(backend: ChatBackend): LoopPolicy {
  return {
    async complete(messages, s) {
      const out = await backend.complete({ messages, sampling: { temperature: s.temperature, max_tokens: s.maxTokens, seed: s.seed }, signal: s.signal });
      const choice = out.choices[0];
      const tokens = choice?.tokenIds ? ({ promptTokenIds: out.promptTokenIds, tokenIds: choice.tokenIds, logprobs: choice.logprobs } as Json) : null;
      return { text: choice?.content ?? "", tokens };
    },
    agent: (s) => chatAgent({ backend, sampling: { temperature: s.temperature, max_tokens: s.maxTokens, seed: s.seed }, signal: s.signal }),
  };
}
