/**
 * @module trainer/types
 * The `Trainer` interface: what the loop hands a training engine once per step. One batch holds
 * both roles' samples; the engine applies one optimiser step to the one model.
 */
import type { DesignRow, EpisodeRow } from "../store/index.js";

/** One training sample with what it was computed from. */
export interface TrainSample {
  role: "agent" | "designer";
  /** The store's sample reference (`<envId>/<idx>` or `<step>/<slot>/<seq>`). */
  ref: string;
  reward: number;
  /** Broadcast to every trained token of the sample. */
  advantage: number;
  /** The episode (agent samples): messages and, when sampled at token level, tokens and logprobs. */
  episode?: EpisodeRow;
  /** The design attempt (designer samples): prompt, completion and tokens when present. */
  design?: DesignRow;
}

/**
 * Where the weights after a step live on the engine. The loop stores it in the transaction that
 * completes the step, so a resumed run continues from exactly the last committed weights.
 */
export interface TrainerCheckpoint {
  /** The step whose optimiser update these weights include. */
  step: number;
  /** Weights to sample from (`tinker://.../sampler_weights/...`). */
  samplerPath: string;
  /** Weights and optimiser state to resume training from (`tinker://.../weights/...`), or null when not saved. */
  statePath: string | null;
}

/** What one training step reports. */
export interface TrainResult {
  /** Engine metrics (loss, ...), stored with the step. */
  metrics: Record<string, number>;
  /** The weights after the step, or null when nothing has been trained or saved yet. */
  checkpoint?: TrainerCheckpoint | null;
}

/** What a step's batch holds besides the samples handed to the trainer. */
export interface TrainOptions {
  /**
   * Samples in the step's batch: those handed over plus those left out of it with an all-zero loss
   * mask (agent samples of truncated episodes under `truncatedEpisodes: mask`). The divisor of
   * `sample-mean` loss aggregation (Slime's step batch, `rl/loss-aggregation.ts`). Default: the
   * samples handed over.
   */
  batchSize?: number;
}

/** A training engine. */
export interface Trainer {
  /** Applies one optimiser step over `samples` (both roles). */
  train(
    step: number,
    samples: readonly TrainSample[],
    options?: TrainOptions,
  ): Promise<TrainResult>;
  /** Continues from a checkpoint a previous process stored (a resumed run), before any `train`. */
  restore?(checkpoint: TrainerCheckpoint): Promise<void>;
}
