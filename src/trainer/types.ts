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

/** What one training step reports. */
export interface TrainResult {
  /** Engine metrics (loss, ...), stored with the step. */
  metrics: Record<string, number>;
}

/** A training engine. */
export interface Trainer {
  /** Applies one optimiser step over `samples` (both roles). */
  train(step: number, samples: readonly TrainSample[]): Promise<TrainResult>;
}
