/**
 * @module loop/score
 * What a finished step is worth, composed from small pure parts: environment stats over their
 * window of plays (`score-stats.ts`), the agent's GRPO samples and the batch fill
 * (`score-agent.ts`), the delayed designer samples due this step (`score-designer.ts`), the trim
 * to the batch, and the step's metrics (`score-metrics.ts`). Pure: rows in, rows out (the caller
 * writes them in one transaction).
 */
import type { RunConfig } from "../config/index.js";
import type { LpState } from "../rl/index.js";
// What scoring reads, and what it produces.
import type { DesignOutcome, EnvironmentSummary, EpisodeResult } from "../store/index.js";
import type { EnvStats, SampleRow } from "../store/index.js";
import { agentSamples, fillAgentSamples, trimCounts } from "./score-agent.js";
import { designerSamples, dueDesigns, withEnvironments } from "./score-designer.js";
import { stepMetrics, type StepMetrics } from "./score-metrics.js";
import { envStats } from "./score-stats.js";

export type { StepMetrics } from "./score-metrics.js";

/** Everything scoring reads. */
export interface ScoreInput {
  config: RunConfig;
  step: number;
  /** True on the run's last step: designer samples still waiting are scored now. */
  isLast: boolean;
  /** Environments played this step. */
  pool: readonly EnvironmentSummary[];
  /** Unhinted plays per environment this step. */
  playsPerEnv: number;
  /** The environments created from the window's first step on (`scoreWindowStart`): those of the due designs among them. */
  environments: readonly EnvironmentSummary[];
  /** The episodes from the window's first step up to and including this step. */
  episodes: readonly EpisodeResult[];
  /** The design attempts from the window's first step on. */
  designs: readonly DesignOutcome[];
  /** Refs of design attempts already trained (a run extended with a larger --steps after its last-step flush). */
  trainedDesigns: ReadonlySet<string>;
  /** Learning-potential trackers per skill (reward variant `learningPotential`). */
  lpState: Readonly<Record<string, LpState>>;
}

/** What scoring produces. */
export interface StepScore {
  stats: Map<string, EnvStats>;
  /** Samples to train: designer samples first under `batchFit: reference` (the reference's batch order), else agent samples first. */
  samples: SampleRow[];
  lpState: Record<string, LpState>;
  metrics: StepMetrics;
}

/**
 * Designer samples the reference reserves room for when it fills the agent batch: the designs
 * made this step that will be trained (`collect_trajectories`, stage 7: `num_env`).
 */
function newDesignSamples(
  config: RunConfig,
  step: number,
  designs: readonly DesignOutcome[],
): number {
  // --train-designer off: designer samples are stored, never trained, so they take no room.
  if (config.trainDesigner === "off") return 0;
  const made = designs.filter((d) => d.step === step && d.trainable);
  if (config.invalidDesign !== "drop") return made.length;
  return made.filter((d) =>
    designs.some((x) => x.step === d.step && x.slot === d.slot && x.envId !== null),
  ).length;
}

/** Scores one finished step (see the module comment). */
export function scoreStep(input: ScoreInput): StepScore {
  const { config, step } = input;
  const stats = new Map<string, EnvStats>();
  for (const env of input.pool)
    stats.set(env.id, envStats(config.regenerateEvery, env, input.episodes));

  const fit = config.batchFit === "reference";
  const agent = agentSamples(step, input.pool, input.episodes, {
    stdNormalize: config.advantageStd,
  });
  const filled = fit
    ? fillAgentSamples(agent, config.agentBatch - newDesignSamples(config, step, input.designs))
    : agent;

  const due = withEnvironments(
    dueDesigns(input.designs, {
      step,
      rewardDelay: config.rewardDelay,
      isLast: input.isLast,
      trained: input.trainedDesigns,
    }),
    input.designs,
    input.environments,
  );
  const designer = designerSamples({
    config,
    step,
    due,
    episodes: input.episodes,
    stats,
    agentSampleCount: filled.length,
    lpState: input.lpState,
  });
  due.forEach(({ env }, i) => {
    const advantage = designer.advantages[i];
    if (!env || advantage === null || advantage === undefined) return;
    stats.set(env.id, {
      ...(stats.get(env.id) ?? env.stats),
      designerReward: designer.rawRewards[i] ?? 0,
      designerAdvantage: advantage,
      rewardStep: step,
    });
  });

  // The cut counts only what is trained: untrained designer samples (--train-designer off) are all kept for the record.
  const trainsDesigner = config.trainDesigner === "on";
  const kept = !fit
    ? { designer: designer.samples.length, agent: filled.length }
    : trainsDesigner
      ? trimCounts(designer.samples.length, filled.length, config.agentBatch)
      : { designer: designer.samples.length, agent: Math.min(filled.length, config.agentBatch) };
  const metrics = stepMetrics({
    step,
    pool: input.pool,
    playsPerEnv: input.playsPerEnv,
    episodes: input.episodes.filter((e) => e.step === step),
    designs: input.designs.filter((d) => d.step === step),
    stats,
    agentSamples: filled.length,
    agentSamplesFilled: filled.length - agent.length,
    agentSamplesTrimmed: filled.length - kept.agent,
    designerSamples: designer.samples.slice(0, kept.designer),
    designerScale: designer.scale,
  });
  const keptDesigner = designer.samples.slice(0, kept.designer);
  const keptAgent = filled.slice(0, kept.agent);
  return {
    stats,
    samples: fit ? [...keptDesigner, ...keptAgent] : [...keptAgent, ...keptDesigner],
    lpState: designer.lpState,
    metrics,
  };
}
