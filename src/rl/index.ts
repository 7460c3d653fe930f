/**
 * @module rl
 * Public face of the reward math: regret, designer rewards and their centring and scale, the
 * learning-potential tracker, GRPO advantages, the KL fold, the loss aggregation carried in the
 * advantages and the difficulty window. Each module is public whole. Pure: numbers in, numbers out.
 */
export * from "./regret.js";
export * from "./designer-reward.js";
export * from "./designer-advantage.js";
export * from "./learning-potential.js";
export * from "./grpo.js";
export * from "./kl.js";
export * from "./loss-aggregation.js";
export * from "./difficulty.js";
