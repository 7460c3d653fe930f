/**
 * @module trainer/datums
 * Training samples of both roles as Tinker datums: one token sequence each (an agent's whole
 * episode stream, or a designer's prompt plus its sampled completion), shifted by one position,
 * with the sampler's logprobs and the sample's advantage on the model's own tokens only.
 */
import type { Json } from "../env/index.js";
import { SpadeError } from "../errors.js";
import type { TrainSample } from "./types.js";

/** A flat tensor as the Tinker API carries it (`TensorData`: data, dtype, shape). */
export interface TensorData {
  data: number[];
  dtype: "int64" | "float32";
  shape: number[];
}

/** One training example on the wire (`Datum`: `model_input` chunks and `loss_fn_inputs`). */
export interface Datum {
  model_input: { chunks: Array<{ type: "encoded_text"; tokens: number[] }> };
  loss_fn_inputs: { target_tokens: TensorData; logprobs: TensorData; advantages: TensorData };
}

/** A token sequence as sampled: ids, 1 where the model sampled the id, the sampler's logprob of each id. */
export interface TokenSequence {
  tokenIds: readonly number[];
  lossMask: readonly number[];
  logprobs: readonly number[];
}

/** The datums of a batch, in sample order, with what they hold. */
export interface DatumBatch {
  datums: Datum[];
  /** The role of each datum. */
  roles: Array<TrainSample["role"]>;
  /** Per datum: its targets' loss mask (1 where the target was sampled by the model). */
  masks: number[][];
  /** Targets sampled by the model, over all datums. */
  trainedTokens: number;
}

const isIntArray = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((x) => Number.isInteger(x));
const isNumArray = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isFinite(x));

function tensor(data: number[], dtype: TensorData["dtype"]): TensorData {
  return { data, dtype, shape: [data.length] };
}

/**
 * The datum of one sequence: `model_input = tokens[:-1]`, `target_tokens = tokens[1:]` (position i
 * predicts token i + 1); `logprobs` and `advantages` are aligned to the targets and are 0 on
 * targets the model did not sample (prompt, observation, tool and closing tokens), so those
 * tokens contribute nothing to a policy-gradient loss.
 *
 * Why the sampler's logprobs: `importance_sampling` minimises -(p_theta(x) / q(x)) * A over the
 * sampled tokens, q being the sampling policy recorded here. Agent samples are sampled from the
 * weights of the step before (ratio near 1); a designer sample is trained D steps after it was
 * sampled (its reward needs the window of plays), by which time the policy has moved: the ratio
 * p_theta / q re-weights it to the current policy, so the delayed, off-policy sample still gives
 * an unbiased gradient. `ppo` additionally clips the ratio to [clip_low, clip_high] (taking the
 * pessimistic minimum of clipped and unclipped objectives), bounding how far one stale sample can
 * push the policy when the ratio has drifted far from 1.
 */
export function sequenceDatum(sequence: TokenSequence, advantage: number): Datum {
  const { tokenIds, lossMask, logprobs } = sequence;
  if (
    tokenIds.length < 2 ||
    lossMask.length !== tokenIds.length ||
    logprobs.length !== tokenIds.length
  ) {
    throw new SpadeError(
      "E_CONFIG",
      `a training sequence needs at least 2 tokens and one mask and logprob per token (got ${tokenIds.length} ids, ${lossMask.length} mask values, ${logprobs.length} logprobs)`,
    );
  }
  if (!Number.isFinite(advantage))
    throw new SpadeError("E_RL_INPUT", `advantage must be finite (got ${advantage})`);
  const targets = tokenIds.slice(1);
  const sampled = lossMask.slice(1);
  return {
    model_input: { chunks: [{ type: "encoded_text", tokens: tokenIds.slice(0, -1) }] },
    loss_fn_inputs: {
      target_tokens: tensor(targets, "int64"),
      // `x ? v : 0`, not `x * v`: a masked negative advantage must be 0, not -0.
      logprobs: tensor(
        sampled.map((m, i) => (m ? (logprobs[i + 1] as number) : 0)),
        "float32",
      ),
      advantages: tensor(
        sampled.map((m) => (m ? advantage : 0)),
        "float32",
      ),
    },
  };
}

/**
 * The token sequence of an agent episode: the token agent's growing stream (`trace.stream`). A
 * trace without one (a chat-level backend), or whose sampled turns carry no logprobs, cannot be
 * trained with an importance-weighted loss: E_CONFIG.
 */
export function episodeSequence(trace: Json | null | undefined, ref: string): TokenSequence {
  const t = (trace ?? {}) as {
    stream?: { tokenIds?: unknown; lossMask?: unknown; logprobs?: unknown };
    turns?: Array<{ logprobs?: unknown }>;
  };
  const s = t.stream;
  if (!s || !isIntArray(s.tokenIds) || !isIntArray(s.lossMask) || !isNumArray(s.logprobs)) {
    throw new SpadeError("E_CONFIG", `agent sample ${ref} has no token stream to train on`, {
      nextStep: "training samples token by token: use --policy tinker (the engine's own sampler)",
    });
  }
  if ((t.turns ?? []).some((turn) => turn.logprobs === null)) {
    throw new SpadeError("E_CONFIG", `agent sample ${ref} was sampled without logprobs`, {
      nextStep:
        "use a sampling server that returns logprobs (the importance-sampling loss needs them)",
    });
  }
  return { tokenIds: s.tokenIds, lossMask: s.lossMask, logprobs: s.logprobs };
}

/** The token sequence of a designer completion: its prompt (mask 0) then its sampled ids (mask 1). */
export function designSequence(tokens: Json | null | undefined, ref: string): TokenSequence {
  const t = (tokens ?? {}) as { promptTokenIds?: unknown; tokenIds?: unknown; logprobs?: unknown };
  if (
    !isIntArray(t.promptTokenIds) ||
    !isIntArray(t.tokenIds) ||
    !isNumArray(t.logprobs) ||
    t.logprobs.length !== t.tokenIds.length
  ) {
    throw new SpadeError(
      "E_CONFIG",
      `designer sample ${ref} has no prompt tokens, sampled tokens and logprobs to train on`,
      {
        nextStep:
          "training samples token by token: use --policy tinker (the engine's own sampler, which returns logprobs)",
      },
    );
  }
  return {
    tokenIds: [...t.promptTokenIds, ...t.tokenIds],
    lossMask: [...t.promptTokenIds.map(() => 0), ...t.tokenIds.map(() => 1)],
    logprobs: [...t.promptTokenIds.map(() => 0), ...t.logprobs],
  };
}

/**
 * The datums of a step's samples, both roles in one batch, in sample order. Failed episodes never
 * reach here (scoring gives them no sample); a sample whose row is missing is a programming error.
 */
export function datumsFor(samples: readonly TrainSample[]): DatumBatch {
  const batch: DatumBatch = { datums: [], roles: [], masks: [], trainedTokens: 0 };
  for (const sample of samples) {
    let sequence: TokenSequence;
    if (sample.role === "agent") {
      if (!sample.episode)
        throw new SpadeError("E_CONFIG", `agent sample ${sample.ref} came without its episode`);
      sequence = episodeSequence(sample.episode.trace, sample.ref);
    } else {
      if (!sample.design)
        throw new SpadeError("E_CONFIG", `designer sample ${sample.ref} came without its design`);
      sequence = designSequence(sample.design.tokens, sample.ref);
    }
    const mask: number[] = sequence.lossMask.slice(1).map((m) => (m ? 1 : 0));
    batch.datums.push(sequenceDatum(sequence, sample.advantage));
    batch.roles.push(sample.role);
    batch.masks.push(mask);
    batch.trainedTokens += mask.reduce((a, b) => a + b, 0);
  }
  return batch;
}
