/**
 * @module trainer
 * Public face of training: the `Trainer` interface the loop hands its batches to, token-level
 * datums of both roles, and the Tinker-compatible training client and trainer.
 */
export type {
  Trainer,
  TrainerCheckpoint,
  TrainOptions,
  TrainResult,
  TrainSample,
} from "./types.js";
export { datumsFor, designSequence, episodeSequence, sequenceDatum } from "./datums.js";
export type { Datum, DatumBatch, TensorData, TokenSequence } from "./datums.js";
export * from "./tinker.js";
export { TinkerTrainer, DEFAULT_ADAM, DEFAULT_PPO_CLIP } from "./tinker-trainer.js";
export type { TinkerTrainerOptions } from "./tinker-trainer.js";
export { tinkerBaseLogprobs, parsePromptLogprobs } from "./base-logprobs.js";
export type { BaseLogprobsFn } from "./base-logprobs.js";
