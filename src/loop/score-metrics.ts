/**
 * @module loop/score-metrics
 * The deterministic metrics of one step, from its episodes, designs and samples. Pure. Every
 * number that goes into the designer's scale is here, so the formula can be checked from outside
 * (`spade runs show --json`).
 */
import type {
  DesignOutcome,
  EnvironmentSummary,
  EnvStats,
  EpisodeResult,
  SampleRow,
} from "../store/index.js";
import { episodeOutcome } from "./outcome.js";

/** Deterministic metrics of one step (timing is added by the caller, outside the store). */
export interface StepMetrics {
  step: number;
  regenerated: boolean;
  designSlots: number;
  designsValid: number;
  designCompletions: number;
  poolSize: number;
  /** Unhinted plays per environment this step. */
  playsPerEnv: number;
  episodes: number;
  /** Episodes dropped (infrastructure failures: left out of every statistic and of training). */
  failedEpisodes: number;
  /** Episodes ended by a context overflow (truncated, return 0, counted). */
  overflowEpisodes: number;
  /** Agent turns with a malformed tool call (answered with an error, masked out of training). */
  maskedTurns: number;
  /** Unhinted success rate over this step's finished plays (null when none finished). */
  agentSuccess: number | null;
  /** Hinted success rate over this step's finished hinted plays (null when none). */
  hintedSuccess: number | null;
  meanReturn: number | null;
  /** Mean regret of the environments whose regret was measured this step (null when none). */
  meanRegret: number | null;
  /** Agent samples the designer scale counts: finished unhinted plays, plus copies when the batch was filled. */
  agentSamples: number;
  /** Designer samples trained this step. */
  designerSamples: number;
  /** The scale the designer's centred rewards were multiplied by: min(50, agentSamples / designerSamples * R); 1 when either is 0. */
  designerScale: number;
  /** Copies added to fill the agent batch. */
  agentSamplesFilled: number;
  /** Agent samples cut to keep the batch at `agentBatch`. */
  agentSamplesTrimmed: number;
  meanDesignerReward: number | null;
}

/** What the metrics are computed from. */
export interface MetricsInput {
  step: number;
  pool: readonly EnvironmentSummary[];
  playsPerEnv: number;
  /** Episodes of this step. */
  episodes: readonly EpisodeResult[];
  /** Design attempts of this step. */
  designs: readonly DesignOutcome[];
  stats: ReadonlyMap<string, EnvStats>;
  /** Agent samples before the trim (after the fill). */
  agentSamples: number;
  agentSamplesFilled: number;
  agentSamplesTrimmed: number;
  designerSamples: readonly SampleRow[];
  designerScale: number;
}

const mean = (xs: readonly number[]): number | null =>
  xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;

/** The step's metrics (see `StepMetrics`). */
export function stepMetrics(input: MetricsInput): StepMetrics {
  const { step, episodes } = input;
  const finishedUnhinted = episodes.filter((e) => !e.hinted && e.failure === null);
  const finishedHinted = episodes.filter((e) => e.hinted && e.failure === null);
  const regrets = input.pool
    .filter((env) => env.createdStep === step)
    .map((env) => input.stats.get(env.id)?.regret)
    .filter((r): r is number => typeof r === "number");
  return {
    step,
    regenerated: input.designs.length > 0,
    designSlots: new Set(input.designs.map((d) => d.slot)).size,
    designsValid: input.designs.filter((d) => d.envId !== null).length,
    designCompletions: input.designs.length,
    poolSize: input.pool.length,
    playsPerEnv: input.playsPerEnv,
    episodes: episodes.length,
    failedEpisodes: episodes.filter((e) => e.failure !== null).length,
    overflowEpisodes: episodes.filter((e) => episodeOutcome(e).outcome === "overflow").length,
    maskedTurns: episodes.reduce((sum, e) => sum + episodeOutcome(e).maskedTurns.length, 0),
    agentSuccess: mean(finishedUnhinted.map((e) => (e.success ? 1 : 0))),
    hintedSuccess: mean(finishedHinted.map((e) => (e.success ? 1 : 0))),
    meanReturn: mean(finishedUnhinted.map((e) => e.return)),
    meanRegret: mean(regrets),
    agentSamples: input.agentSamples,
    designerSamples: input.designerSamples.length,
    designerScale: input.designerScale,
    agentSamplesFilled: input.agentSamplesFilled,
    agentSamplesTrimmed: input.agentSamplesTrimmed,
    meanDesignerReward: mean(input.designerSamples.map((s) => s.reward)),
  };
}
