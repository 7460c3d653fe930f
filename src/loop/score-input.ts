/**
 * @module loop/score-input
 * What scoring reads from the store after a step's plays: the episodes of the pool's window and
 * of the designs whose reward is due, those designs, the environments they produced, the
 * designer samples already trained and the learning-potential trackers.
 */
import type { RunConfig } from "../config/index.js";
import type { LpState } from "../rl/index.js";
import type { EnvironmentSummary, RunStore } from "../store/index.js";
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

/** The input of `scoreStep` for `step` played over `pool`, read from `store`. */
export function readScoreInput(
  store: RunStore,
  config: RunConfig,
  step: number,
  pool: readonly EnvironmentSummary[],
  playsPerEnv: number,
): ScoreInput {
  const fromStep = scoreWindowStart(config, step);
  return {
    config,
    step,
    isLast: step === config.steps - 1,
    pool,
    playsPerEnv,
    // Stats, not programs or traces; every read is bounded by the window, whatever the run's length.
    environments: store.environmentSummaries({ fromStep }),
    episodes: store.episodeResults({ fromStep }),
    designs: store.designOutcomes({ fromStep }),
    lpState: store.getState<Record<string, LpState>>("lp") ?? {},
    trainedDesigns: new Set(
      store
        .samples({ fromStep })
        .filter((s) => s.role === "designer")
        .map((s) => s.ref),
    ),
  };
}
