/**
 * @module loop/score-input
 * What scoring reads from the store after a step's plays: the episodes of the pool's window and
 * of the designs whose reward is due, those designs, the environments they produced, the
 * designer samples already trained and the learning-potential trackers.
 */
import type { RunConfig } from "../config/index.js";
import type { LpState } from "../rl/index.js";
import type { EnvironmentSummary, EnvStats, RunStore, SampleRow } from "../store/index.js";
import type { ScoreInput } from "./score.js";

/**
 * The first step scoring at `step` reads: the start of the pool's regeneration epoch, or the
 * step whose designs are due (D steps back), whichever is earlier.
 */
export function scoreWindowStart(
  config: Pick<RunConfig, "regenerateEvery" | "rewardDelay">,
  step: number,
): number {
  return Math.max(0, Math.min(step - (step % config.regenerateEvery), step - config.rewardDelay));
}

/**
 * What scoring reads beyond the store while earlier steps are scored but not committed
 * (`StepPipeline`, `--max-off-policy`): their stats, trackers and designer samples laid over it.
 */
export interface PendingView {
  withPendingStats<R extends { id: string; stats: EnvStats }>(rows: readonly R[]): R[];
  lpState(): Record<string, LpState>;
  /** Refs of design attempts trained (or handed to the trainer) by steps from `fromStep` on. */
  trainedDesigns(fromStep: number): Set<string>;
}

/** Refs of the design attempts among `samples` (the designer's) of steps from `fromStep` on. */
export function designerRefs(samples: readonly SampleRow[], fromStep: number): string[] {
  return samples.filter((s) => s.role === "designer" && s.step >= fromStep).map((s) => s.ref);
}

/** The store as it is: nothing pending (every step before this one is committed). */
export function committedView(store: RunStore): PendingView {
  return {
    withPendingStats: (rows) => [...rows],
    lpState: () => store.getState<Record<string, LpState>>("lp") ?? {},
    trainedDesigns: (fromStep) => new Set(designerRefs(store.samples({ fromStep }), fromStep)),
  };
}

/**
 * The input of `scoreStep` for `step` played over `pool`, read from `store` through `view`. Rows
 * of later steps are left out: a resumed pipelined run may already hold their designs and plays.
 */
export function readScoreInput(
  store: RunStore,
  config: RunConfig,
  step: number,
  pool: readonly EnvironmentSummary[],
  playsPerEnv: number,
  view: PendingView = committedView(store),
): ScoreInput {
  // Stats, not programs or traces; every read is bounded by the window, whatever the run's length.
  const range = { fromStep: scoreWindowStart(config, step), beforeStep: step + 1 };
  return {
    config,
    step,
    isLast: step === config.steps - 1,
    pool,
    playsPerEnv,
    environments: view.withPendingStats(store.environmentSummaries(range)),
    episodes: store.episodeResults(range),
    designs: store.designOutcomes(range),
    lpState: view.lpState(),
    trainedDesigns: view.trainedDesigns(range.fromStep),
  };
}
