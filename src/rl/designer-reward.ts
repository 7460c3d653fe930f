/**
 * @module rl/designer-reward
 * The designer's raw reward for one environment, before per-skill centring and scaling: the
 * reference's blend of floored regret and a win-rate plateau, and its variants.
 */
import { SpadeError } from "../errors.js";
import { requireFinite, requireInRange, requirePositiveOption } from "./check.js";

/** The designer reward variants. */
export const DESIGNER_REWARD_VARIANTS = ["blend", "regret", "solveRate", "learningPotential"] as const;

/** One of the designer reward variants. */
export type DesignerRewardVariant = (typeof DESIGNER_REWARD_VARIANTS)[number];

/** The lowest raw reward any variant gives: every variant is in [0, 1]. */
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
}

/** What the designer reward of one environment is computed from. */
export interface DesignStats {
  /** Mean hinted minus mean unhinted return (see `regret`). */
  regret: number;
  /** Unhinted win rate in [0, 1] over the window of plays (see `winRate`); `learningPotential` also accepts a mean return in [-1, 1]. */
  winRate: number;
  /** The skill's learning-potential baseline (`lpBaseline`); needed by `learningPotential` only. */
  lpBaseline?: number;
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
 * - `learningPotential`: |winRate - lpBaseline| (the reference passes the mean return here).
 */
export function designerRawReward(variant: DesignerRewardVariant, stats: DesignStats, options: DesignerRewardOptions = {}): number {
  // learningPotential may be fed the mean return (the reference's way), which can be negative.
  const winRate = variant === "learningPotential"
    ? requireInRange(stats.winRate, -1, 1, "mean return")
    : requireInRange(stats.winRate, 0, 1, "win rate");
  const floor = options.regretFloor ?? 0.15;
  switch (variant) {
    case "blend": {
      const regretWeight = requireFinite(options.regretWeight ?? 0.4, "regret weight");
      const plateauWeight = requireFinite(options.plateauWeight ?? 0.6, "plateau weight");
      return regretWeight * regretTerm(stats.regret, floor) + plateauWeight * plateau(winRate, options.plateau);
    }
    case "regret":
      return regretTerm(stats.regret, floor);
    case "solveRate":
      return plateau(winRate, options.plateau);
    case "learningPotential": {
      if (stats.lpBaseline === undefined) {
        throw new SpadeError("E_RL_INPUT", "the learningPotential reward needs the skill's lpBaseline", {
          nextStep: "update the skill's tracker with lpUpdate and pass lpBaseline(state)",
        });
      }
      return Math.abs(winRate - requireFinite(stats.lpBaseline, "lpBaseline"));
    }
    default:
      throw new SpadeError("E_CONFIG", `unknown designer reward variant ${String(variant)}`, {
        nextStep: `use one of ${DESIGNER_REWARD_VARIANTS.join(", ")}`,
      });
  }
}
