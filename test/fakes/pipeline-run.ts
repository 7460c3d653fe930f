/**
 * @module test/fakes/pipeline-run
 * The in-process pipelined runs of the scripted scenario shared by src/loop/pipeline.test.ts
 * and test/e2e/pipeline-kill.test.ts: a training double whose weights are named by step, and a
 * runner that plays the scenario with a policy recording the weights it is told to use.
 */
import type { RunConfig } from "../../src/config/index.js";
import type { LoopPolicy } from "../../src/loop/policy.js";
import { runSelfPlay, type LoopDeps } from "../../src/loop/run.js";
import type { Trainer, TrainerCheckpoint } from "../../src/trainer/index.js";

/** The checkpoint the training double returns after step `step`. */
export const checkpointOf = (step: number): TrainerCheckpoint => ({
  step,
  samplerPath: `fake://sampler/${step}`,
  statePath: `fake://state/${step}`,
});

/** TEST DOUBLE: a trainer whose weights after step s are `checkpointOf(s)`; `hold` can keep a step's training from returning. */
export function fakeTrainer(hold: (step: number) => Promise<void> = async () => {}) {
  const log: string[] = [];
  const trainer: Trainer = {
    async train(step, samples) {
      log.push(`train ${step} (${samples.length})`);
      await hold(step);
      return { metrics: { datums: samples.length }, checkpoint: checkpointOf(step) };
    },
    async restore(checkpoint) {
      log.push(`restore ${checkpoint.step}`);
    },
  };
  return { trainer, log };
}

/** A scenario policy that records the weights it is told to sample from. */
export type RecordingPolicy = LoopPolicy & { weights: string[] };

/**
 * The scenario's runs over `policy()` (the scripted server's policy, `useScenarioServer`):
 * `recordingPolicy()` wraps a fresh one; `run` runs the scenario into `out` with a recording
 * policy, no progress output and a clock at 0 unless `deps` say otherwise.
 */
export function pipelineRunner(policy: () => LoopPolicy) {
  const recordingPolicy = (): RecordingPolicy => {
    const weights: string[] = [];
    return { ...policy(), weights, useWeights: (p) => weights.push(p) };
  };
  const run = (
    out: string,
    config: RunConfig,
    deps: Partial<LoopDeps> & { trainer: Trainer },
    resume = false,
  ): Promise<void> =>
    runSelfPlay(
      out,
      config,
      { policy: recordingPolicy(), progress: () => {}, now: () => 0, ...deps },
      { resume },
    );
  return { recordingPolicy, run };
}
