/**
 * @module policy/tinker
 * The Tinker-compatible sampling client (Tinker, SkyRL tx, verl's gateway, TuFT): token ids in,
 * sampled ids and per-token logprobs out, through `asample` and futures polling. Wire format as
 * the official SDK's types define it: `ModelInput {chunks: [{type: "encoded_text", tokens}]}`,
 * `SamplingParams {max_tokens, stop (ids), temperature, top_p, top_k, seed}`, answers
 * `{sequences: [{tokens, logprobs, stop_reason}]}` as JSON or, when the server answers the SDK's
 * `Accept: application/x-protobuf`, as a protobuf `SampleResponse`.
 */
import { SpadeError } from "../errors.js";
import { type Limiter, sharedLimiter } from "./limiter.js";
import { DEFAULT_MAX_CONCURRENT_REQUESTS } from "./openai.js";
import {
  FutureExpiredError,
  answeredId,
  submitSample,
  TinkerHttp,
  type TinkerHttpOptions,
} from "./tinker-http.js";
import { decodeSampleResponse } from "./tinker-wire.js";
import type { TokenSample, TokenSampler, TokenSampleRequest } from "./token-types.js";

/** Settings of a Tinker-compatible sampler. */
export interface TinkerSamplerOptions extends TinkerHttpOptions {
  /** The base model exactly as the server names it (SkyRL tx: its `--base-model` string). */
  baseModel: string;
  /** A `tinker://` path of saved sampler weights to sample from instead of the base model. */
  modelPath?: string;
  /**
   * Sample through a sampling session (`create_session`, `create_sampling_session`, then
   * `sampling_session_id` + `seq_id` per request), as the official SDK does. Default true.
   * False: every `asample` names `base_model` / `model_path` itself.
   */
  samplingSession?: boolean;
  /** Defaults for requests that leave them unset. */
  sampling?: Pick<TokenSampleRequest, "temperature" | "topP" | "topK" | "seed">;
  /** Most samples in flight (submitted, not yet retrieved) to this server from the whole process. Default 64. Ignored with `limiter`. */
  maxConcurrentRequests?: number;
  /** A limiter to use instead of the shared one. */
  limiter?: Limiter;
  /** Submissions after the server dropped a result (HTTP 410). Default 2. */
  maxResubmits?: number;
  /** An HTTP client (and session) to share, e.g. with a training client. Default: a new one from these options. */
  http?: TinkerHttp;
}

/** A Tinker-compatible sampler. */
export interface TinkerSampler extends TokenSampler {
  /** The HTTP layer (session, futures), for training calls on the same server. */
  readonly http: TinkerHttp;
  /** Stops the session heartbeat. */
  close(): void;
}

function isIntArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v));
}

/** Parses a sampling result (`SampleResponse`); E_POLICY_OUTPUT when it is not one. */
export function parseSampleResponse(body: unknown): TokenSample[] {
  const sequences = (body as { sequences?: unknown } | null)?.sequences;
  if (!Array.isArray(sequences) || sequences.length === 0) {
    throw new SpadeError(
      "E_POLICY_OUTPUT",
      `the sampling result has no sequences: ${JSON.stringify(body).slice(0, 200)}`,
      { nextStep: "check that the server speaks the Tinker sampling API" },
    );
  }
  return sequences.map((raw, i) => {
    const seq = (raw ?? {}) as { tokens?: unknown; logprobs?: unknown; stop_reason?: unknown };
    const logprobs = seq.logprobs ?? null;
    const valid =
      isIntArray(seq.tokens) &&
      (logprobs === null ||
        (Array.isArray(logprobs) &&
          logprobs.length === seq.tokens.length &&
          logprobs.every((v) => typeof v === "number")));
    if (!valid)
      throw new SpadeError(
        "E_POLICY_OUTPUT",
        `sequence ${i} of the sampling result is malformed: ${JSON.stringify(raw).slice(0, 200)}`,
      );
    return {
      tokenIds: seq.tokens as number[],
      logprobs: logprobs as number[] | null,
      stopReason: typeof seq.stop_reason === "string" ? seq.stop_reason : "unknown",
    };
  });
}

/**
 * The `sampling_params` object, `stop` as token ids. Unset temperature, top_p and top_k are sent
 * as the SDK sends them (1, 1, -1: plain sampling, which every engine implements); an unset seed
 * is left out.
 */
function samplingParams(
  request: TokenSampleRequest,
  defaults: TinkerSamplerOptions["sampling"] = {},
): Record<string, unknown> {
  const params: Record<string, unknown> = {
    max_tokens: request.maxTokens,
    stop: [...request.stopTokenIds],
  };
  const seed = request.seed ?? defaults.seed;
  if (seed !== undefined) params.seed = seed;
  params.temperature = request.temperature ?? defaults.temperature ?? 1;
  params.top_k = request.topK ?? defaults.topK ?? -1;
  params.top_p = request.topP ?? defaults.topP ?? 1;
  return params;
}

/** Creates a Tinker-compatible sampler. E_CONFIG at once for a bad request size or an unset key variable. */
export function tinkerSampler(options: TinkerSamplerOptions): TinkerSampler {
  const http = options.http ?? new TinkerHttp(options);
  const limiter =
    options.limiter ??
    sharedLimiter(
      `tinker:${http.baseURL}`,
      options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS,
    );
  const model = options.modelPath
    ? { model_path: options.modelPath }
    : { base_model: options.baseModel };
  let samplingSessionId: Promise<string> | null = null;

  /** The sampling session id, created on first use. */
  const samplingSession = (signal?: AbortSignal): Promise<string> => {
    samplingSessionId ??= (async () => {
      const sessionId = await http.session(signal);
      const body = {
        session_id: sessionId,
        sampling_session_seq_id: http.nextSeqId("sampling_session"),
        ...model,
        type: "create_sampling_session",
      };
      const answer = await http.post("/api/v1/create_sampling_session", body, { signal });
      return answeredId(answer, "create_sampling_session", "sampling_session_id");
    })();
    samplingSessionId.catch(() => (samplingSessionId = null));
    return samplingSessionId;
  };

  /** Submits one `asample` and returns its request id. */
  const submit = async (request: TokenSampleRequest): Promise<string> => {
    const source =
      options.samplingSession === false
        ? model
        : await samplingSession(request.signal).then((id) => ({
            sampling_session_id: id,
            seq_id: http.nextSeqId(`sample:${id}`),
          }));
    const body = {
      ...source,
      num_samples: request.numSamples ?? 1,
      prompt: { chunks: [{ type: "encoded_text", tokens: [...request.promptTokenIds] }] },
      sampling_params: samplingParams(request, options.sampling),
      prompt_logprobs: false,
      topk_prompt_logprobs: 0,
      topk_sample_logprobs: 0,
      prompt_alt_tokens_k: 0,
      record_stability_info: false,
      type: "sample",
    };
    return submitSample(http, body, request.signal);
  };

  return {
    model: options.modelPath ?? options.baseModel,
    http,
    close: () => http.close(),
    async sample(request) {
      if (!Number.isInteger(request.maxTokens) || request.maxTokens < 1) {
        throw new SpadeError(
          "E_CONFIG",
          `maxTokens must be an integer >= 1 (got ${request.maxTokens})`,
        );
      }
      return limiter.run(async () => {
        for (let resubmits = 0; ; resubmits++) {
          const requestId = await submit(request);
          try {
            return parseSampleResponse(
              await http.awaitFuture(requestId, request.signal, decodeSampleResponse),
            );
          } catch (err) {
            if (!(err instanceof FutureExpiredError) || resubmits >= (options.maxResubmits ?? 2))
              throw err;
          }
        }
      }, request.signal);
    },
  };
}
