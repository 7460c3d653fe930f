/**
 * @module rl/loss-aggregation
 * How a step's per-token losses add up to the one loss its optimiser step follows, carried in the
 * advantages: Tinker's losses sum over tokens, Slime's (the reference's scripts, hence the paper's
 * numbers) take each sample's mean over its tokens and divide their sum by the step's batch.
 *
 * Derivation. Sample s of a step's batch has trained targets T_s (loss mask 1), n_s = |T_s|, an
 * advantage a_t on each (the sample's advantage, plus the KL fold's term), and on each the ratio
 * r_t = p_theta(x_t) / q(x_t) against the sampler's logprob. Tinker's per-token losses are
 *   importance_sampling: l_t(a) = -r_t a
 *   ppo:                 l_t(a) = -min(r_t a, clip(r_t, 1 - eps_low, 1 + eps_high) a)
 * and the engine minimises their plain sum over every target of every datum (targets outside T_s
 * carry a = 0 and add nothing):
 *   L_tinker = sum_s sum_{t in T_s} l_t(a'_t).
 * Slime without `--calculate-per-token-loss` (the reference's scripts) minimises
 *   L_slime = (1 / G) sum_s (1 / max(n_s, 1)) sum_{t in T_s} l_t(a_t)
 * (`get_sum_of_sample_mean`, then `loss * num_microbatches / step_global_batch_size`), G the
 * samples in the step. Both losses are positively homogeneous in a: for c >= 0,
 * l_t(c a) = c l_t(a), for ppo because min(c x, c y) = c min(x, y); whether a token is clipped (its
 * gradient zero) depends on r_t and the sign of a only, which c does not change, so also
 * grad l_t(c a) = c grad l_t(a). Hence with
 *   a'_t = a_t / (G max(n_s, 1))                                    (sample-mean)
 * L_tinker = L_slime term by term: the same gradient for every token, clipped ones included, so
 * also the same gradient norm for a clip at the optimiser step (`--grad-clip-norm`). `token-sum` keeps a'_t = a_t: each sample
 * weighs by its number of trained tokens (SPADE before this switch, and the reference's Tinker
 * backend but for its batch_size / transitions factor, `spade/tinker/train_step.py`, which SPADE
 * never applied). Example, G = 2, a = 1: samples of 3 and 7 trained tokens get 1/6 and 1/14 per
 * token, 1/2 each in all; under token-sum 1 per token, 3 and 7 in all.
 *
 * G counts every sample of the step's batch, also those with no trained token: an agent sample
 * left out under `--truncated-episodes mask` (the reference zeroes its loss mask, and Slime still
 * counts it in the step's batch) or one whose every turn was masked adds 0 to the sum and 1 to G.
 * Designer samples not trained (`--train-designer off`) are not in the batch, as in the reference.
 * A batch the reference fills with inert copies is, with KL coefficient 0 (its games runs),
 * rescaled so that its loss divides by the real samples (`spade_generate_rollout`,
 * `reward_scale = global_batch_size / n_real`): G is those real samples here, with or without KL.
 * The KL fold comes first, so its term is weighted too, as Slime's KL loss goes through the same
 * per-sample mean.
 */
import { SpadeError } from "../errors.js";
import { requireFinite } from "./check.js";

/** The aggregations: `token-sum` (Tinker's, every trained token weighs 1) and `sample-mean` (Slime's). */
export const LOSS_AGGREGATIONS = ["token-sum", "sample-mean"] as const;

/** How per-token losses add up (see the module comment). */
export type LossAggregation = (typeof LOSS_AGGREGATIONS)[number];

/** One datum's targets: their advantages and loss mask (1 where the model sampled the target). */
export interface AggregationTargets {
  advantages: readonly number[];
  mask: readonly number[];
}

/**
 * The divisor of each sequence's advantages: 1 under `token-sum`, G max(n_s, 1) under
 * `sample-mean`, n_s the sequence's trained targets and G = `batchSize`, the samples of the step's
 * batch (at least the sequences given: samples without trained targets count too).
 */
export function advantageDivisors(
  trainedTargets: readonly number[],
  aggregation: LossAggregation,
  batchSize: number,
): number[] {
  if (!LOSS_AGGREGATIONS.includes(aggregation))
    throw new SpadeError(
      "E_CONFIG",
      `loss aggregation must be one of ${LOSS_AGGREGATIONS.join(", ")} (got ${String(aggregation)})`,
    );
  if (!Number.isInteger(batchSize) || batchSize < trainedTargets.length)
    throw new SpadeError(
      "E_RL_INPUT",
      `the step's batch must be a whole number of samples, at least the ${trainedTargets.length} trained (got ${batchSize})`,
    );
  return trainedTargets.map((n) => {
    if (!Number.isInteger(n) || n < 0)
      throw new SpadeError("E_RL_INPUT", `trained targets must be a count (got ${n})`);
    return aggregation === "token-sum" ? 1 : batchSize * Math.max(n, 1);
  });
}

/**
 * The advantages of a step's datums under `aggregation`: each trained target's advantage divided
 * by its sequence's divisor (`advantageDivisors`); targets outside the mask keep theirs (0 in a
 * datum). `token-sum` returns them unchanged.
 */
export function aggregateAdvantages(
  sequences: readonly AggregationTargets[],
  aggregation: LossAggregation,
  batchSize: number,
): number[][] {
  const divisors = advantageDivisors(
    sequences.map((s) => {
      if (s.mask.length !== s.advantages.length)
        throw new SpadeError(
          "E_RL_INPUT",
          `one mask value per advantage (got ${s.mask.length} and ${s.advantages.length})`,
        );
      return s.mask.filter((m) => m).length;
    }),
    aggregation,
    batchSize,
  );
  return sequences.map((s, i) => {
    const divisor = divisors[i] as number;
    return s.advantages.map((a, t) => {
      requireFinite(a, "advantage");
      return s.mask[t] ? a / divisor : a;
    });
  });
}
