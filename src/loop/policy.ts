/**
 * @module loop/policy
 * How the loop samples from the model, whatever the backend: a designer completion for a
 * conversation, and an agent for an episode. Chat-level backends (OpenAI-compatible servers,
 * local GGUF) give text; token-level ones (a Tinker-compatible sampler) also give the tokens and
 * logprobs that training needs.
 */
import type { RunConfig } from "../config/index.js";
import { HINT_TOP_P } from "../designer/index.js";
import type { Json } from "../env/index.js";
import {
  chatAgent,
  type ChatBackend,
  type ChatMessage,
  type OutageBreaker,
  type SamplingParams,
} from "../policy/index.js";
import type { Agent } from "../rollout/index.js";

/** Sampling settings of one request. */
export interface LoopSampling {
  temperature: number;
  /** Nucleus sampling; unset: the backend's default. */
  topP?: number;
  /** Top-k sampling; unset: not sent. */
  topK?: number;
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

/**
 * The sampling settings a run gives both roles (the reference's 0.6 / 0.95 / 20 by default);
 * `topK` 0 means "not sent".
 */
export function runSampling(
  config: Pick<RunConfig, "temperature" | "topP" | "topK">,
): Pick<LoopSampling, "temperature" | "topP" | "topK"> {
  return {
    temperature: config.temperature,
    topP: config.topP,
    ...(config.topK > 0 ? { topK: config.topK } : {}),
  };
}

/**
 * The hint writer's sampling: `hintTemperature`, `HINT_TOP_P` and `hintMaxTokens`, and no top-k
 * whatever `--top-k` says. The reference's hint call passes neither top-p nor top-k, so its
 * adapter's defaults apply: `generate_async`'s own `top_p = 0.9`, and the top-k of
 * `default_sampling_params`, Slime's `--rollout-top-k`, which its scripts leave at -1 (off).
 */
export function hintSampling(
  config: Pick<RunConfig, "hintTemperature" | "hintMaxTokens">,
): Pick<LoopSampling, "temperature" | "topP" | "maxTokens"> {
  return {
    temperature: config.hintTemperature,
    topP: HINT_TOP_P,
    maxTokens: config.hintMaxTokens,
  };
}

/** The chat-level sampling parameters of a loop request; unset top-p / top-k are not sent. */
export function chatSampling(s: LoopSampling): SamplingParams {
  return {
    temperature: s.temperature,
    ...(s.topP !== undefined ? { top_p: s.topP } : {}),
    ...(s.topK !== undefined ? { top_k: s.topK } : {}),
    max_tokens: s.maxTokens,
    seed: s.seed,
  };
}

/** A loop policy over a chat-level backend. Tokens are kept when the server returns them (vLLM). */
export function chatLoopPolicy(backend: ChatBackend): LoopPolicy {
  return {
    async complete(messages, s) {
      const out = await backend.complete({ messages, sampling: chatSampling(s), signal: s.signal });
      const choice = out.choices[0];
      const tokens = choice?.tokenIds
        ? ({
            promptTokenIds: out.promptTokenIds,
            tokenIds: choice.tokenIds,
            logprobs: choice.logprobs,
          } as Json)
        : null;
      return { text: choice?.content ?? "", tokens };
    },
    agent: (s) => chatAgent({ backend, sampling: chatSampling(s), signal: s.signal }),
  };
}

/**
 * `policy` with every designer completion and agent turn watched by `breaker`: once the model
 * server has failed `--outage-after` requests in a row, its signal stops the run (loop/run.ts's
 * caller combines it with Ctrl-C's).
 */
export function watchedLoopPolicy(policy: LoopPolicy, breaker: OutageBreaker): LoopPolicy {
  return {
    complete: breaker.wrap(policy.complete.bind(policy)),
    agent: (sampling) => breaker.wrap(policy.agent(sampling)),
    ...(policy.useWeights ? { useWeights: policy.useWeights.bind(policy) } : {}),
  };
}
