/**
 * @module rl
 * Public face of the reward math: regret, designer rewards and their centring and scale, the
 * learning-potential tracker, and GRPO advantages. Pure: numbers in, numbers out.
 */
export { regret, winRate, meanUnhintedReturn } from "./regret.js";
export type { PlayOutcome, RegretPairing, RegretOptions, RegretResult } from "./regret.js";
export {
  designerRawReward,
  plateau,
  regretTerm,
  DESIGNER_REWARD_VARIANTS,
  DESIGNER_REWARD_FLOOR,
  microLearningProgress,
  frontierPenalty,
  isMaskedDesignerReward,
} from "./designer-reward.js";
export type {
  DesignerRewardVariant,
  DesignerRewardOptions,
  DesignStats,
  PlateauOptions,
} from "./designer-reward.js";
export { centreBySkill, designerScale, designerAdvantages } from "./designer-advantage.js";
export type {
  DesignerSample,
  InvalidDesignPolicy,
  DesignerAdvantageOptions,
} from "./designer-advantage.js";
export {
  lpUpdate,
  lpBaseline,
  lpPotential,
  lpSignedPotential,
  LP_INITIAL,
} from "./learning-potential.js";
export type { LpState, LpOptions } from "./learning-potential.js";
export { groupAdvantages, populationStd } from "./grpo.js";
export { foldKlPenalty } from "./kl.js";
export type { KlTargets, KlFold } from "./kl.js";
export type { GroupAdvantageOptions } from "./grpo.js";
export {
  initialWindow,
  updateWindow,
  sampleDifficulty,
  SLIDING_WINDOW_DEFAULTS,
} from "./difficulty.js";
export type { DifficultyWindow, SlidingWindowOptions } from "./difficulty.js";
