/**
 * @module trainer
 * Public face of training: the `Trainer` interface the loop hands its batches to.
 */
export type { Trainer, TrainResult, TrainSample } from "./types.js";
