/**
 * @module loop/score-designer
 * The designer's samples of a step: which design attempts are due (D steps after they were
 * made, all remaining ones on the last step), their raw rewards over their environment's window
 * of plays, and the advantages trained: centred per skill and scaled by
 * min(50, nAgent / nDesigner * R), nDesigner counting the designer samples actually trained.
 * Pure: rows in, rows out.
 */
import type { RunConfig } from "../config/index.js";
import {
  designerAdvantages,
  designerRawReward,
  designerScale,
  isMaskedDesignerReward,
  LP_INITIAL,
  lpBaseline,
  lpUpdate,
  meanUnhintedReturn,
  type LpState,
} from "../rl/index.js";
import type {
  DesignOutcome,
  EnvironmentSummary,
  EnvStats,
  EpisodeScore,
  SampleRow,
} from "../store/index.js";
import { designRef } from "./keys.js";
import { windowPlays } from "./score-stats.js";

/** When designer samples are due. */
export interface DueOptions {
  step: number;
  rewardDelay: number;
  /** True on the run's last step: every design still waiting is due. */
  isLast: boolean;
  /** Refs (`designRef`) of attempts already trained (a run extended after its last-step flush). */
  trained: ReadonlySet<string>;
}

/** The trainable design attempts whose reward is due at `step`, in stored order. */
export function dueDesigns(
  designs: readonly DesignOutcome[],
  options: DueOptions,
): DesignOutcome[] {
  const made = options.step - options.rewardDelay;
  return designs.filter(
    (d) =>
      d.trainable &&
      !options.trained.has(designRef(d.step, d.slot, d.seq)) &&
      (d.step === made || (options.isLast && d.step > made)),
  );
}

/** A due design with the environment its slot produced (null: the slot has no valid program). */
export interface DueDesign {
  design: DesignOutcome;
  env: EnvironmentSummary | null;
}

/** Pairs each due design with its slot's environment. */
export function withEnvironments(
  due: readonly DesignOutcome[],
  designs: readonly DesignOutcome[],
  environments: readonly EnvironmentSummary[],
): DueDesign[] {
  const envById = new Map(environments.map((e) => [e.id, e]));
  return due.map((design) => {
    const accepted = designs.find(
      (x) => x.step === design.step && x.slot === design.slot && x.envId !== null,
    );
    return { design, env: accepted?.envId ? (envById.get(accepted.envId) ?? null) : null };
  });
}

/** What designer scoring reads besides the due designs. */
export interface DesignerScoreInput {
  config: Pick<
    RunConfig,
    "reward" | "regretFloor" | "frontierScale" | "invalidDesign" | "regenerateEvery"
  >;
  step: number;
  due: readonly DueDesign[];
  /** Every episode of the run the windows may hold. */
  episodes: readonly EpisodeScore[];
  /** Stats of each environment (after this step's plays); an environment missing here uses its stored stats. */
  stats: ReadonlyMap<string, EnvStats>;
  /** Agent samples of the step (after the batch fill): the numerator of the scale. */
  agentSampleCount: number;
  lpState: Readonly<Record<string, LpState>>;
}

/** What designer scoring produces. */
export interface DesignerScore {
  /** One row per trained designer sample, in due order. */
  samples: SampleRow[];
  /** Raw reward per due design (null: invalid), in due order. */
  rawRewards: Array<number | null>;
  /** Advantage per due design (null: not trained), in due order. */
  advantages: Array<number | null>;
  /** The scale applied after centring. */
  scale: number;
  lpState: Record<string, LpState>;
}

/** The finished unhinted plays of an environment's window. */
function finishedWindow(
  regenerateEvery: number,
  env: EnvironmentSummary,
  episodes: readonly EpisodeScore[],
): EpisodeScore[] {
  return windowPlays(regenerateEvery, env, episodes).filter((e) => e.failure === null);
}

/** The returns of the finished plays of a window, one list per step in step order (for `microLp`). */
function returnsByStepOf(window: readonly EpisodeScore[]): number[][] {
  const byStep = new Map<number, number[]>();
  for (const e of window) byStep.set(e.step, [...(byStep.get(e.step) ?? []), e.return]);
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([, returns]) => returns);
}

/**
 * Learning-potential trackers after the due designs: each skill whose due environments have
 * finished plays is fed their mean return (`delayed_env_rewards.py` `recompute_delayed_env_rewards`,
 * `update_lp`); a skill without any is left as it was.
 */
export function updateLearningPotential(
  regenerateEvery: number,
  due: readonly DueDesign[],
  episodes: readonly EpisodeScore[],
  lpState: Readonly<Record<string, LpState>>,
): Record<string, LpState> {
  const next: Record<string, LpState> = { ...lpState };
  for (const skill of new Set(due.filter((x) => x.env).map((x) => x.design.skill))) {
    const plays = due
      .filter((x) => x.env && x.design.skill === skill)
      .flatMap((x) => finishedWindow(regenerateEvery, x.env as EnvironmentSummary, episodes));
    if (plays.length > 0)
      next[skill] = lpUpdate(next[skill] ?? LP_INITIAL, meanUnhintedReturn(plays)).state;
  }
  return next;
}

/** Scores the due designs (see the module comment). */
export function designerSamples(input: DesignerScoreInput): DesignerScore {
  const { config } = input;
  const lpState =
    config.reward === "learningPotential"
      ? updateLearningPotential(config.regenerateEvery, input.due, input.episodes, input.lpState)
      : { ...input.lpState };
  const rawRewards = input.due.map(({ design, env }) => {
    if (!env) return null;
    const s = input.stats.get(env.id) ?? env.stats;
    if (config.reward === "learningPotential") {
      // A design none of whose plays finished has nothing to measure: raw reward 0 (the reference's `else 0.0`).
      const finished = finishedWindow(config.regenerateEvery, env, input.episodes);
      if (finished.length === 0) return 0;
      return designerRawReward("learningPotential", {
        regret: 0,
        winRate: meanUnhintedReturn(finished),
        lpBaseline: lpBaseline(lpState[design.skill] ?? LP_INITIAL),
      });
    }
    const returnsByStep =
      config.reward === "microLp"
        ? returnsByStepOf(finishedWindow(config.regenerateEvery, env, input.episodes))
        : undefined;
    return designerRawReward(
      config.reward,
      { regret: s.regret ?? 0, winRate: s.winRate ?? 0, returnsByStep },
      { regretFloor: config.regretFloor, frontierScale: config.frontierScale },
    );
  });
  // A raw reward below 0 (only `frontier` gives one) is masked: not trained, not counted as invalid.
  const centred = designerAdvantages(
    input.due.map((x, i) => {
      const raw = rawRewards[i] ?? null;
      return {
        skill: x.design.skill,
        rawReward: raw,
        masked: raw !== null && isMaskedDesignerReward(raw),
      };
    }),
    { scale: 1, invalidDesign: config.invalidDesign },
  );
  // nDesigner is what is trained: under --invalid-design drop an invalid slot is not a sample.
  const trained = centred.filter((a) => a !== null).length;
  const scale = designerScale(input.agentSampleCount, trained, config.regenerateEvery);
  const advantages = centred.map((a) => (a === null ? null : a * scale));
  const samples: SampleRow[] = [];
  input.due.forEach(({ design }, i) => {
    const advantage = advantages[i];
    if (advantage === null || advantage === undefined) return;
    samples.push({
      step: input.step,
      role: "designer",
      ref: designRef(design.step, design.slot, design.seq),
      reward: rawRewards[i] ?? 0,
      advantage,
    });
  });
  return { samples, rawRewards, advantages, scale, lpState };
}
