/**
 * @module policy/token-types
 * What a token-level sampling backend takes and gives: prompt ids in, sampled ids and their
 * logprobs out. Tinker-compatible servers implement it; the token agent plays through it.
 */

/** One sampling request. */
export interface TokenSampleRequest {
  /** The whole prompt, as token ids. */
  promptTokenIds: readonly number[];
  /** Most tokens to sample (Tinker-compatible servers require it). */
  maxTokens: number;
  /** Ids that end sampling (the end-of-turn and end-of-sequence ids). */
  stopTokenIds: readonly number[];
  /** Independent samples of the prompt. Default 1. */
  numSamples?: number;
  /** Sampling temperature; unset: the backend's default. */
  temperature?: number;
  /** Nucleus sampling; unset: not sent. */
  topP?: number;
  /** Top-k sampling; unset: not sent. */
  topK?: number;
  /** Seed for reproducible sampling; unset: not sent. */
  seed?: number;
  /** Cancels the request; it then rejects with E_CANCELLED. */
  signal?: AbortSignal;
}

/** One sampled sequence. */
export interface TokenSample {
  /** Sampled ids; the stop id is included when the backend returns it. */
  tokenIds: number[];
  /** Logprob of each sampled id under the sampling policy, or null when the backend gave none. */
  logprobs: number[] | null;
  /** Why sampling stopped: `stop` (a stop id) or `length` (max tokens). */
  stopReason: string;
}

/** A token-in, token-out model backend. */
export interface TokenSampler {
  /** The model name, for records. */
  readonly model: string;
  /**
   * Samples `numSamples` sequences. Rejects with E_POLICY_HTTP / E_POLICY_TIMEOUT after retries,
   * E_POLICY_OUTPUT for an unusable answer, E_CANCELLED when cancelled.
   */
  sample(request: TokenSampleRequest): Promise<TokenSample[]>;
}
