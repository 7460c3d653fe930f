/**
 * @module trainer/base-logprobs
 * The base model's logprob of every token of a sequence, for the KL penalty (`klCoef`): Tinker's
 * `compute_logprobs`, i.e. an `asample` of the base model with `prompt_logprobs: true` and one
 * token to sample, whose `prompt_logprobs` holds log p(token i | tokens before i) (null for i = 0).
 */
import { SpadeError } from "../errors.js";
import { submitSample, type TinkerHttp } from "../policy/index.js";

/** The base model's logprob of each token given the ones before it; the first token's is 0. */
export type BaseLogprobsFn = (
  tokenIds: readonly number[],
  signal?: AbortSignal,
) => Promise<number[]>;

/** Reads `prompt_logprobs` of a sampling result for a prompt of `length` tokens; E_POLICY_OUTPUT when it is not that. */
export function parsePromptLogprobs(body: unknown, length: number): number[] {
  const values = (body as { prompt_logprobs?: unknown } | null)?.prompt_logprobs;
  const ok =
    Array.isArray(values) &&
    values.length === length &&
    values.every(
      (v, i) => (i === 0 && v === null) || (typeof v === "number" && Number.isFinite(v)),
    );
  if (!ok) {
    throw new SpadeError(
      "E_POLICY_OUTPUT",
      `the engine answered without ${length} prompt logprobs: ${JSON.stringify(body).slice(0, 200)}`,
      {
        nextStep:
          "use an engine whose sampler returns prompt_logprobs (Tinker does), or set --kl-coef 0",
      },
    );
  }
  return values.map((v) => (v === null ? 0 : (v as number)));
}

/** Base-model logprobs through a Tinker-compatible engine's sampler (see the module comment). */
export function tinkerBaseLogprobs(http: TinkerHttp, baseModel: string): BaseLogprobsFn {
  return async (tokenIds, signal) => {
    const body = {
      base_model: baseModel,
      num_samples: 1,
      prompt: { chunks: [{ type: "encoded_text", tokens: [...tokenIds] }] },
      sampling_params: { max_tokens: 1 },
      prompt_logprobs: true,
      type: "sample",
    };
    const requestId = await submitSample(http, body, signal);
    return parsePromptLogprobs(await http.awaitFuture(requestId, signal), tokenIds.length);
  };
}
