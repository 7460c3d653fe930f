/**
 * @module loop/score
 * What a finished step is worth: environment stats over their window of plays, the agent's GRPO
 * samples, the delayed designer samples due this step, and the step's metrics. Pure: rows in,
 * rows out (the caller writes them in one transaction).
 */
import type { RunConfig } from "../config/index.js";
import {
  designerAdvantages,
  designerRawReward,
  designerScale,
  groupAdvantages,
  isMaskedDesignerReward,
  LP_INITIAL,
  lpBaseline,
  lpUpdate,
  meanUnhintedReturn,
  regret,
  winRate,
  type LpState,
} from "../rl/index.js";
import type { DesignRow, EnvironmentRow, EnvStats, EpisodeRow, SampleRow } from "../store/index.js";
import { designRef, episodeRef } from "./keys.js";

/** Everything scoring reads. */
export interface ScoreInput {
  config: RunConfig;
  step: number;
  /** True on the run's last step: designer samples still waiting are scored now. */
  isLast: boolean;
  /** Environments played this step. */
  pool: readonly EnvironmentRow[];
  /** Every environment of the run. */
  environments: readonly EnvironmentRow[];
  /** Every episode of the run up to and including this step. */
  episodes: readonly EpisodeRow[];
  /** Every design attempt of the run. */
  designs: readonly DesignRow[];
  /** Refs of design attempts already trained (a run extended with a larger --steps after its last-step flush). */
  trainedDesigns: ReadonlySet<string>;
  /** Learning-potential trackers per skill (reward variant `learningPotential`). */
  lpState: Readonly<Record<string, LpState>>;
}

/** Deterministic metrics of one step (timing is added by the caller, outside the store). */
export interface StepMetrics {
  step: number;
  regenerated: boolean;
  designSlots: number;
  designsValid: number;
  designCompletions: number;
  poolSize: number;
  episodes: number;
  failedEpisodes: number;
  /** Unhinted success rate over this step's finished plays (null when none finished). */
  agentSuccess: number | null;
  /** Hinted success rate over this step's finished hinted plays (null when none). */
  hintedSuccess: number | null;
  meanReturn: number | null;
  /** Mean regret of the environments whose regret was measured this step (null when none). */
  meanRegret: number | null;
  agentSamples: number;
  designerSamples: number;
  meanDesignerReward: number | null;
}

/** What scoring produces. */
export interface StepScore {
  stats: Map<string, EnvStats>;
  samples: SampleRow[];
  lpState: Record<string, LpState>;
  metrics: StepMetrics;
}

const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** The unhinted plays that count toward `env`'s stats: R steps from its creation (all, for library envs). */
function windowPlays(config: RunConfig, env: EnvironmentRow, episodes: readonly EpisodeRow[]): EpisodeRow[] {
  const last = env.source === "designer" ? env.createdStep + config.regenerateEvery - 1 : Number.POSITIVE_INFINITY;
  return episodes.filter((e) => e.envId === env.id && !e.hinted && e.step >= env.createdStep && e.step <= last);
}

/** The returns of the finished plays of a window, one list per step in step order (for `microLp`). */
function returnsByStepOf(window: readonly EpisodeRow[]): number[][] {
  const byStep = new Map<number, number[]>();
  for (const e of window) if (e.failure === null) byStep.set(e.step, [...(byStep.get(e.step) ?? []), e.return]);
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([, returns]) => returns);
}

function statsOf(config: RunConfig, env: EnvironmentRow, episodes: readonly EpisodeRow[]): EnvStats {
  const window = windowPlays(config, env, episodes);
  const finished = window.filter((e) => e.failure === null);
  const atCreation = episodes.filter((e) => e.envId === env.id && e.step === env.createdStep);
  const measured = env.source === "designer" && atCreation.some((e) => e.hinted) ? regret(atCreation) : null;
  return {
    ...env.stats,
    plays: new Set(window.map((e) => e.step)).size,
    winRate: finished.length ? winRate(window) : null,
    regret: measured && measured.hintedMean !== null && measured.unhintedMean !== null ? measured.regret : null,
  };
}

/** Scores one finished step (see the module comment). */
export function scoreStep(input: ScoreInput): StepScore {
  const { config, step } = input;
  const stats = new Map<string, EnvStats>();
  for (const env of input.pool) stats.set(env.id, statsOf(config, env, input.episodes));
  const statsFor = (env: EnvironmentRow) => stats.get(env.id) ?? env.stats;

  // Agent: GRPO over each environment's unhinted plays of this step; failed plays are left out.
  const samples: SampleRow[] = [];
  const stepEpisodes = input.episodes.filter((e) => e.step === step);
  for (const env of input.pool) {
    const group = stepEpisodes.filter((e) => e.envId === env.id && !e.hinted);
    const advantages = groupAdvantages(group.map((e) => (e.failure === null ? e.return : null)), { stdNormalize: config.advantageStd });
    group.forEach((e, i) => {
      const advantage = advantages[i];
      if (advantage !== null && advantage !== undefined) samples.push({ step, role: "agent", ref: episodeRef(e.envId, e.idx), reward: e.return, advantage });
    });
  }
  const agentSamples = samples.length;

  // Designer: the samples of designs made D steps ago (and, on the last step, every one still waiting).
  const lpState: Record<string, LpState> = { ...input.lpState };
  const due = input.designs.filter(
    (d) => d.trainable && !input.trainedDesigns.has(designRef(d.step, d.slot, d.seq)) && (d.step === step - config.rewardDelay || (input.isLast && d.step > step - config.rewardDelay)),
  );
  const envById = new Map(input.environments.map((e) => [e.id, e]));
  const slotEnv = (d: DesignRow) => input.designs.find((x) => x.step === d.step && x.slot === d.slot && x.envId !== null)?.envId ?? null;
  const entries = due.map((d) => ({ design: d, env: envById.get(slotEnv(d) ?? "") ?? null }));
  if (config.reward === "learningPotential") {
    for (const skill of new Set(entries.filter((x) => x.env).map((x) => x.design.skill))) {
      const plays = entries.filter((x) => x.env && x.design.skill === skill).flatMap((x) => windowPlays(config, x.env as EnvironmentRow, input.episodes));
      const m = meanUnhintedReturn(plays);
      if (m !== null) lpState[skill] = lpUpdate(lpState[skill] ?? LP_INITIAL, m).state;
    }
  }
  const raw = entries.map(({ design, env }) => {
    if (!env) return null;
    const s = statsFor(env);
    const window = windowPlays(config, env, input.episodes);
    const rate = config.reward === "learningPotential" ? (meanUnhintedReturn(window) ?? 0) : (s.winRate ?? 0);
    const returnsByStep = config.reward === "microLp" ? returnsByStepOf(window) : undefined;
    return designerRawReward(
      config.reward,
      { regret: s.regret ?? 0, winRate: rate, lpBaseline: lpBaseline(lpState[design.skill] ?? LP_INITIAL), returnsByStep },
      { regretFloor: config.regretFloor, frontierScale: config.frontierScale },
    );
  });
  const scale = designerScale(agentSamples, entries.length, config.regenerateEvery);
  const advantages = designerAdvantages(
    entries.map((x, i) => ({ skill: x.design.skill, rawReward: raw[i] ?? null, masked: typeof raw[i] === "number" && isMaskedDesignerReward(raw[i]) })),
    { scale, invalidDesign: config.invalidDesign },
  );
  const designerRewards: number[] = [];
  entries.forEach(({ design, env }, i) => {
    const advantage = advantages[i];
    if (advantage === null || advantage === undefined) return;
    const reward = raw[i] ?? 0;
    designerRewards.push(reward);
    samples.push({ step, role: "designer", ref: designRef(design.step, design.slot, design.seq), reward, advantage });
    if (env) stats.set(env.id, { ...statsFor(env), designerReward: reward, designerAdvantage: advantage, rewardStep: step });
  });

  const finishedUnhinted = stepEpisodes.filter((e) => !e.hinted && e.failure === null);
  const finishedHinted = stepEpisodes.filter((e) => e.hinted && e.failure === null);
  const regrets = input.pool.filter((env) => env.createdStep === step).map((env) => stats.get(env.id)?.regret).filter((r): r is number => typeof r === "number");
  const stepDesigns = input.designs.filter((d) => d.step === step);
  const metrics: StepMetrics = {
    step,
    regenerated: stepDesigns.length > 0,
    designSlots: new Set(stepDesigns.map((d) => d.slot)).size,
    designsValid: stepDesigns.filter((d) => d.envId !== null).length,
    designCompletions: stepDesigns.length,
    poolSize: input.pool.length,
    episodes: stepEpisodes.length,
    failedEpisodes: stepEpisodes.filter((e) => e.failure !== null).length,
    agentSuccess: mean(finishedUnhinted.map((e) => (e.success ? 1 : 0))),
    hintedSuccess: mean(finishedHinted.map((e) => (e.success ? 1 : 0))),
    meanReturn: mean(finishedUnhinted.map((e) => e.return)),
    meanRegret: mean(regrets),
    agentSamples,
    designerSamples: samples.length - agentSamples,
    meanDesignerReward: mean(designerRewards),
  };
  return { stats, samples, lpState, metrics };
}
