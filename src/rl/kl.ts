/**
 * @module rl/kl
 * A KL penalty against the base model, folded into per-token advantages. Tinker's losses have no
 * KL term, so the penalty travels in the advantages instead (as tinker-cookbook's
 * `incorporate_kl_penalty` does); the reference puts a `low_var_kl` term into its loss.
 */
import { SpadeError } from "../errors.js";
import { requireFinite } from "./check.js";

/** One sequence's trained targets: advantages, the sampler's and the base model's logprobs, the loss mask. */
export interface KlTargets {
  advantages: readonly number[];
  samplerLogprobs: readonly number[];
  baseLogprobs: readonly number[];
  /** 1 where the target was sampled by the model (only those are penalised). */
  mask: readonly number[];
}

/** What `foldKlPenalty` gives: the new advantages per sequence and the batch's mean log ratio. */
export interface KlFold {
  advantages: number[][];
  /** Mean of log q - log p_base over every masked target of the batch (a k1 estimate of KL(q || base)); null when none. */
  meanLogRatio: number | null;
}

/**
 * Per masked target t: d_t = log q_t - log p_base_t (q the sampler); with m the mean of d over the
 * batch's masked targets, A'_t = A_t + coef * (m - d_t). Tokens the policy made likelier than the
 * base model did lose advantage, those it made rarer gain it; centring on m keeps the batch's
 * mean advantage unchanged. Unmasked targets keep their advantage. coef 0 changes nothing.
 */
export function foldKlPenalty(sequences: readonly KlTargets[], coef: number): KlFold {
  requireFinite(coef, "KL coefficient");
  if (coef < 0)
    throw new SpadeError("E_CONFIG", `the KL coefficient must be >= 0 (got ${coef})`, {
      nextStep: "set klCoef to 0 (off) or a small positive value such as 0.005",
    });
  const diffs: number[][] = sequences.map((s, i) => {
    const n = s.advantages.length;
    if (s.samplerLogprobs.length !== n || s.baseLogprobs.length !== n || s.mask.length !== n) {
      throw new SpadeError(
        "E_RL_INPUT",
        `sequence ${i}: advantages, logprobs and mask must have one value per target (got ${n}, ${s.samplerLogprobs.length}, ${s.baseLogprobs.length}, ${s.mask.length})`,
      );
    }
    return s.mask.map((m, t) =>
      m
        ? requireFinite(s.samplerLogprobs[t] as number, "sampler logprob") -
          requireFinite(s.baseLogprobs[t] as number, "base logprob")
        : 0,
    );
  });
  let sum = 0;
  let count = 0;
  sequences.forEach((s, i) => {
    s.mask.forEach((m, t) => {
      if (!m) return;
      sum += diffs[i]?.[t] as number;
      count++;
    });
  });
  const meanLogRatio = count ? sum / count : null;
  const advantages = sequences.map((s, i) =>
    s.advantages.map((a, t) =>
      s.mask[t] && coef !== 0
        ? a + coef * ((meanLogRatio as number) - (diffs[i]?.[t] as number))
        : a,
    ),
  );
  return { advantages, meanLogRatio };
}
