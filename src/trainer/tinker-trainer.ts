/**
 * @module trainer/tinker-trainer
 * `TinkerTrainer`: one SPADE step on a Tinker-compatible engine. Datums of both roles go into ONE
 * `forward_backward`, then one `optim_step`, then the weights are saved for resuming
 * (`save_weights`) and for sampling (`save_weights_for_sampler`); the sampler path is what the
 * loop samples the next step from (on-policy) and stores with the step.
 */
import { SpadeError } from "../errors.js";
import { aggregateAdvantages, foldKlPenalty, type LossAggregation } from "../rl/index.js";
import type { BaseLogprobsFn } from "./base-logprobs.js";
import { datumsFor, type DatumBatch } from "./datums.js";
import type {
  AdamParams,
  ForwardBackwardOutput,
  TinkerLoss,
  TinkerTrainingClient,
} from "./tinker.js";
import type {
  Trainer,
  TrainerCheckpoint,
  TrainOptions,
  TrainResult,
  TrainSample,
} from "./types.js";

/**
 * Adam defaults of the reference's 30B runs (docs/reference-notes.md section 7): lr 1e-6 constant,
 * betas 0.9 / 0.98, weight decay 0.1; eps 1e-8 (Megatron's default, which those runs used). No
 * gradient clipping (the reference's Tinker backend sends none; its Slime runs clip at 1.0).
 */
export const DEFAULT_ADAM: AdamParams = {
  learningRate: 1e-6,
  beta1: 0.9,
  beta2: 0.98,
  eps: 1e-8,
  weightDecay: 0.1,
  gradClipNorm: 0,
};

/** PPO ratio clip of the reference: eps 0.2 below, 0.28 above 1. */
export const DEFAULT_PPO_CLIP = { low: 0.8, high: 1.28 };

/** Settings of a Tinker trainer. */
export interface TinkerTrainerOptions {
  client: TinkerTrainingClient;
  /** Default `importance_sampling`. */
  loss?: TinkerLoss;
  /** Ratio bounds of `ppo` (`clip_low_threshold`, `clip_high_threshold`). Default 0.8 / 1.28. */
  ppoClip?: { low: number; high: number };
  /**
   * KL penalty against the base model, folded into the advantages (`foldKlPenalty`): `coef` and
   * where the base model's logprobs come from. Unset or coef 0: no penalty, no extra requests.
   */
  kl?: { coef: number; baseLogprobs: BaseLogprobsFn };
  /**
   * How per-token losses add up, carried in the advantages after the KL fold
   * (`rl/loss-aggregation.ts`): `token-sum` (default; Tinker's sum, each sample weighs by its
   * trained tokens) or `sample-mean` (Slime's: each sample's mean over its tokens, summed and
   * divided by the step's batch).
   */
  lossAggregation?: LossAggregation;
  /** Adam settings; unset fields take `DEFAULT_ADAM`. */
  adam?: Partial<AdamParams>;
  /** Save weights and optimiser state every step, so a resumed run continues from them. Default true. */
  saveState?: boolean;
  /** Checkpoint name of a step (letters, digits, `_`, `-`). Default `spade-step-<step>`. */
  checkpointName?: (step: number) => string;
  signal?: AbortSignal;
}

const mean = (xs: readonly number[]): number | null =>
  xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;

/**
 * Client-side metrics of a step: datum and token counts per role, the summed `elementwise_loss`
 * when the engine returns it, and the mean log ratio log p_theta - log q over each role's trained
 * tokens (how far the policy moved since sampling: near 0 for agent samples, larger for the
 * delayed designer samples that the importance ratio corrects).
 */
function stepMetrics(batch: DatumBatch, out: ForwardBackwardOutput): Record<string, number> {
  const metrics: Record<string, number> = {
    datums: batch.datums.length,
    agentDatums: batch.roles.filter((r) => r === "agent").length,
    designerDatums: batch.roles.filter((r) => r === "designer").length,
    trainedTokens: batch.trainedTokens,
  };
  let loss: number | null = null;
  const logRatios: Record<TrainSample["role"], number[]> = { agent: [], designer: [] };
  for (const [i, output] of out.lossFnOutputs.entries()) {
    const mask = batch.masks[i] ?? [];
    const sampled = batch.datums[i]?.loss_fn_inputs.logprobs.data ?? [];
    const elementwise = output?.elementwise_loss?.data;
    if (Array.isArray(elementwise)) loss = (loss ?? 0) + elementwise.reduce((a, b) => a + b, 0);
    const current = output?.logprobs?.data;
    if (!Array.isArray(current) || current.length !== mask.length) continue;
    const role = batch.roles[i] as TrainSample["role"];
    mask.forEach((m, t) => {
      if (m) logRatios[role].push((current[t] as number) - (sampled[t] as number));
    });
  }
  if (loss !== null) metrics.loss = loss;
  const agentRatio = mean(logRatios.agent);
  const designerRatio = mean(logRatios.designer);
  if (agentRatio !== null) metrics["agentLogRatio:mean"] = agentRatio;
  if (designerRatio !== null) metrics["designerLogRatio:mean"] = designerRatio;
  return metrics;
}

/** A `Trainer` over a Tinker-compatible engine (see the module comment). */
export class TinkerTrainer implements Trainer {
  readonly adam: AdamParams;
  readonly loss: TinkerLoss;
  readonly lossAggregation: LossAggregation;
  #checkpoint: TrainerCheckpoint | null = null;

  constructor(readonly options: TinkerTrainerOptions) {
    this.adam = { ...DEFAULT_ADAM, ...options.adam };
    this.loss = options.loss ?? "importance_sampling";
    this.lossAggregation = options.lossAggregation ?? "token-sum";
    if (!(this.adam.learningRate > 0))
      throw new SpadeError("E_CONFIG", `learningRate must be > 0 (got ${this.adam.learningRate})`);
    if (!(Number.isFinite(this.adam.gradClipNorm) && this.adam.gradClipNorm >= 0))
      throw new SpadeError(
        "E_CONFIG",
        `gradClipNorm must be a number >= 0, 0 for no clipping (got ${this.adam.gradClipNorm})`,
      );
  }

  /** The weights of the last step trained or restored, or null. */
  get checkpoint(): TrainerCheckpoint | null {
    return this.#checkpoint;
  }

  /**
   * Continues from a stored checkpoint: the (new) model loads its weights and optimiser state;
   * without a state path the engine's model starts from the base weights (E_CONFIG: it would
   * silently train different weights than the run sampled from).
   */
  async restore(checkpoint: TrainerCheckpoint): Promise<void> {
    if (checkpoint.statePath === null) {
      throw new SpadeError(
        "E_CONFIG",
        `step ${checkpoint.step}'s weights were saved for sampling only; training cannot continue from them`,
        {
          nextStep:
            "start a new run (runs save their training state every step unless saveState is off)",
        },
      );
    }
    await this.options.client.loadState(
      checkpoint.statePath,
      { optimizer: true },
      this.options.signal,
    );
    this.#checkpoint = checkpoint;
  }

  /**
   * Folds the KL penalty into `batch`'s advantages in place (see `TinkerTrainerOptions.kl`); the
   * base model's logprobs are asked for 16 sequences at a time. Returns the `kl:mean` metric.
   */
  async #foldKl(batch: DatumBatch): Promise<Record<string, number>> {
    const kl = this.options.kl;
    if (!kl || kl.coef === 0 || batch.datums.length === 0) return {};
    const base: number[][] = [];
    for (let i = 0; i < batch.datums.length; i += 16) {
      const chunk = batch.datums.slice(i, i + 16).map(async (d) => {
        const input = d.model_input.chunks[0]?.tokens ?? [];
        const targets = d.loss_fn_inputs.target_tokens.data;
        // Sequence = input + last target; the base logprob of target t is that of token t + 1.
        return (await kl.baseLogprobs([...input, ...targets.slice(-1)], this.options.signal)).slice(
          1,
        );
      });
      base.push(...(await Promise.all(chunk)));
    }
    const fold = foldKlPenalty(
      batch.datums.map((d, i) => ({
        advantages: d.loss_fn_inputs.advantages.data,
        samplerLogprobs: d.loss_fn_inputs.logprobs.data,
        baseLogprobs: base[i] as number[],
        mask: batch.masks[i] as number[],
      })),
      kl.coef,
    );
    batch.datums.forEach((d, i) => {
      d.loss_fn_inputs.advantages.data = fold.advantages[i] as number[];
    });
    return fold.meanLogRatio === null ? {} : { "kl:mean": fold.meanLogRatio };
  }

  /**
   * Divides `batch`'s advantages in place as `lossAggregation` asks, over a step's batch of
   * `batchSize` samples (`aggregateAdvantages`); `token-sum` leaves them as they are. Returns the
   * `batchSize` metric under `sample-mean`.
   */
  #aggregate(batch: DatumBatch, batchSize: number): Record<string, number> {
    const advantages = aggregateAdvantages(
      batch.datums.map((d, i) => ({
        advantages: d.loss_fn_inputs.advantages.data,
        mask: batch.masks[i] as number[],
      })),
      this.lossAggregation,
      batchSize,
    );
    if (this.lossAggregation === "token-sum") return {};
    batch.datums.forEach((d, i) => {
      d.loss_fn_inputs.advantages.data = advantages[i] as number[];
    });
    return { batchSize };
  }

  /**
   * One step: datums -> forward_backward -> optim_step -> save_weights -> save_weights_for_sampler.
   * Each pair is submitted back to back (the engine runs a model's requests in seq-id order) and
   * then waited for. A step with no samples changes nothing and returns the current checkpoint.
   * `options.batchSize`: the samples of the step's batch, those left out with a zero loss mask
   * included (the divisor of `sample-mean`); default `samples.length`.
   */
  async train(
    step: number,
    samples: readonly TrainSample[],
    options: TrainOptions = {},
  ): Promise<TrainResult> {
    const batch = datumsFor(samples);
    if (batch.datums.length === 0) return { metrics: { datums: 0 }, checkpoint: this.#checkpoint };
    const { client, signal } = this.options;
    const clip = this.options.ppoClip ?? DEFAULT_PPO_CLIP;
    const lossConfig =
      this.loss === "ppo"
        ? { clip_low_threshold: clip.low, clip_high_threshold: clip.high }
        : undefined;
    // The KL term is folded in first, so that sample-mean weighs it like the rest of the loss.
    const klMetrics = await this.#foldKl(batch);
    const aggregationMetrics = this.#aggregate(batch, options.batchSize ?? samples.length);
    const fb = await client.submitForwardBackward(batch.datums, this.loss, lossConfig, signal);
    const optim = await client.submitOptimStep(this.adam, signal);
    const out = await fb.result();
    const optimMetrics = await optim.result();

    const name = this.options.checkpointName?.(step) ?? `spade-step-${step}`;
    const state =
      this.options.saveState === false ? null : await client.submitSaveState(name, signal);
    const sampler = await client.submitSaveWeightsForSampler(name, signal);
    const statePath = state ? await state.result() : null;
    const samplerPath = await sampler.result();
    this.#checkpoint = { step, samplerPath, statePath };

    const metrics = {
      ...out.metrics,
      ...stepMetrics(batch, out),
      ...klMetrics,
      ...aggregationMetrics,
    };
    for (const [key, value] of Object.entries(optimMetrics)) metrics[`optim/${key}`] = value;
    return { metrics, checkpoint: this.#checkpoint };
  }
}
