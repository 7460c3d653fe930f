/**
 * @module rl/designer-reward
 * The designer's raw reward for one environment, before per-skill centring and scaling: the
 * reference's blend of floored regret and a win-rate plateau, and its variants (solve rate,
 * learning potential, micro learning progress, the frontier anchor), from
 * `spade/core/utils/delayed_env_rewards.py`.
 */
import { SpadeError } from "../errors.js";
import { requireFinite, requireInRange, requirePositiveOption } from "./check.js";

/** The designer reward variants. */
export const DESIGNER_REWARD_VARIANTS = [
  "blend",
  "regret",
  "solveRate",
  "learningPotential",
  "microLp",
  "frontier",
] as const;

/** One of the designer reward variants. */
export type DesignerRewardVariant = (typeof DESIGNER_REWARD_VARIANTS)[number];

/**
 * The lowest raw reward a design that is trained can have: every variant is >= 0 (`frontier` can
 * go below 0, and those designs are not trained: `isMaskedDesignerReward`).
 */
export const DESIGNER_REWARD_FLOOR = 0;

/** The win-rate plateau: 1 on [lo, hi], falling linearly to 0 over `ramp` on each side. */
export interface PlateauOptions {
  /** Low edge of the flat top. Default 0.4. */
  lo?: number;
  /** High edge of the flat top. Default 0.6. */
  hi?: number;
  /** Width of each linear side; 0 is reached at lo - ramp and hi + ramp. Default 0.25. */
  ramp?: number;
}

/** Options of `designerRawReward`; the defaults are the reference's 30B flags. */
export interface DesignerRewardOptions {
  /** Weight of the regret term in `blend`. Default 0.4. */
  regretWeight?: number;
  /** Weight of the plateau term in `blend`. Default 0.6. */
  plateauWeight?: number;
  /** Regret at which the regret term saturates: clip(regret / regretFloor, 0, 1). Default 0.15. */
  regretFloor?: number;
  /** Plateau shape. */
  plateau?: PlateauOptions;
  /** Weight of the frontier penalty in `frontier`. Default 0.6 (the plateau's weight in `blend`, which it replaces). */
  frontierWeight?: number;
  /** The frontier penalty (winRate - 0.5)^2 is divided by this. Default 0.08 (the reference's `frontier_scale`). */
  frontierScale?: number;
}

/** What the designer reward of one environment is computed from. */
export interface DesignStats {
  /** Mean hinted minus mean unhinted return (see `regret`). */
  regret: number;
  /** Unhinted win rate in [0, 1] over the window of plays (see `winRate`); `learningPotential` also accepts a mean return in [-1, 1]. */
  winRate: number;
  /** The skill's learning-potential baseline (`lpBaseline`); needed by `learningPotential` only. */
  lpBaseline?: number;
  /**
   * Returns of the finished unhinted plays of the window, one list per step, in step order (steps
   * without plays left out); needed by `microLp` only.
   */
  returnsByStep?: readonly (readonly number[])[];
}

const meanOrZero = (xs: readonly number[]): number =>
  xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;

/**
 * Micro learning progress (`delayed_env_rewards.py:recompute_delayed_env_rewards_micro_lp`): the
 * steps of the window split at `floor(n / 2)` (an odd middle step joins the late half);
 * max(0, mean(late returns) - mean(early returns)), a mean of nothing being 0. Fewer than 2
 * steps: 0 (no improvement can be seen).
 */
export function microLearningProgress(returnsByStep: readonly (readonly number[])[]): number {
  if (returnsByStep.length < 2) return 0;
  const mid = Math.floor(returnsByStep.length / 2);
  for (const r of returnsByStep.flat()) requireFinite(r, "return");
  const early = meanOrZero(returnsByStep.slice(0, mid).flat());
  const late = meanOrZero(returnsByStep.slice(mid).flat());
  return Math.max(0, late - early);
}

/** The frontier penalty (`recompute_delayed_env_rewards_blend`'s `frontier_penalty`): (winRate - 0.5)^2. */
export function frontierPenalty(winRate: number): number {
  requireFinite(winRate, "win rate");
  return (winRate - 0.5) ** 2;
}

/**
 * True when a raw reward is not trained: below 0, which only `frontier` can give (the reference
 * masks every `blend < 0`, `proposer_masked`). Such a design is not counted as invalid either.
 */
export function isMaskedDesignerReward(raw: number): boolean {
  return raw < 0;
}

/** The reference's win-rate plateau (`plateau_reward`): 1 on [0.4, 0.6], 0 at 0.15 and 0.85. */
export function plateau(winRate: number, options: PlateauOptions = {}): number {
  const lo = options.lo ?? 0.4;
  const hi = options.hi ?? 0.6;
  const ramp = requirePositiveOption(options.ramp ?? 0.25, "plateau ramp");
  if (!(lo <= hi)) throw new SpadeError("E_CONFIG", `plateau lo must be <= hi (got ${lo} > ${hi})`);
  requireFinite(winRate, "win rate");
  if (winRate < lo) return Math.max(0, 1 - (lo - winRate) / ramp);
  if (winRate > hi) return Math.max(0, 1 - (winRate - hi) / ramp);
  return 1;
}

/** The regret term: clip(regret / floor, 0, 1), so negative regret (a misleading hint) counts 0. */
export function regretTerm(regret: number, regretFloor = 0.15): number {
  requireFinite(regret, "regret");
  requirePositiveOption(regretFloor, "regret floor");
  return Math.min(1, Math.max(0, regret / regretFloor));
}

/**
 * Raw designer reward of one environment:
 * - `blend`: regretWeight * clip(regret / floor, 0, 1) + plateauWeight * plateau(winRate);
 * - `regret`: clip(regret / floor, 0, 1);
 * - `solveRate`: plateau(winRate);
 * - `learningPotential`: |winRate - lpBaseline| (the reference passes the mean return here);
 * - `microLp`: `microLearningProgress(returnsByStep)`;
 * - `frontier`: regretWeight * clip(regret / floor, 0, 1) - frontierWeight * frontierPenalty(winRate) / frontierScale
 *   (the reference's blend with its frontier anchor in place of the plateau; below 0 is masked).
 */
export function designerRawReward(
  variant: DesignerRewardVariant,
  stats: DesignStats,
  options: DesignerRewardOptions = {},
): number {
  // learningPotential may be fed the mean return (the reference's way), which can be negative.
  const winRate =
    variant === "learningPotential"
      ? requireInRange(stats.winRate, -1, 1, "mean return")
      : requireInRange(stats.winRate, 0, 1, "win rate");
  const floor = options.regretFloor ?? 0.15;
  switch (variant) {
    case "blend": {
      const regretWeight = requireFinite(options.regretWeight ?? 0.4, "regret weight");
      const plateauWeight = requireFinite(options.plateauWeight ?? 0.6, "plateau weight");
      return (
        regretWeight * regretTerm(stats.regret, floor) +
        plateauWeight * plateau(winRate, options.plateau)
      );
    }
    case "regret":
      return regretTerm(stats.regret, floor);
    case "solveRate":
      return plateau(winRate, options.plateau);
    case "microLp": {
      if (stats.returnsByStep === undefined) {
        throw new SpadeError(
          "E_RL_INPUT",
          "the microLp reward needs the window's returns by step",
          {
            nextStep:
              "pass returnsByStep: the finished unhinted plays' returns of each step of the window",
          },
        );
      }
      return microLearningProgress(stats.returnsByStep);
    }
    case "frontier": {
      const regretWeight = requireFinite(options.regretWeight ?? 0.4, "regret weight");
      const frontierWeight = requireFinite(options.frontierWeight ?? 0.6, "frontier weight");
      const frontierScale = requirePositiveOption(options.frontierScale ?? 0.08, "frontier scale");
      return (
        regretWeight * regretTerm(stats.regret, floor) -
        (frontierWeight * frontierPenalty(winRate)) / frontierScale
      );
    }
    case "learningPotential": {
      if (stats.lpBaseline === undefined) {
        throw new SpadeError(
          "E_RL_INPUT",
          "the learningPotential reward needs the skill's lpBaseline",
          {
            nextStep: "update the skill's tracker with lpUpdate and pass lpBaseline(state)",
          },
        );
      }
      return Math.abs(winRate - requireFinite(stats.lpBaseline, "lpBaseline"));
    }
    default:
      throw new SpadeError("E_CONFIG", `unknown designer reward variant ${String(variant)}`, {
        nextStep: `use one of ${DESIGNER_REWARD_VARIANTS.join(", ")}`,
      });
  }
}
