/**
 * @module loop
 * Public face of the self-play orchestrator.
 */
export { runSelfPlay, METRICS_FILE } from "./run.js";
export type { LoopDeps } from "./run.js";
export { scoreStep } from "./score.js";
export type { ScoreInput, StepScore, StepMetrics } from "./score.js";
export { seedOf, playSeeds, designedEnvId, libraryEnvId, episodeRef, designRef } from "./keys.js";
export { chatLoopPolicy, chatSampling, runSampling, hintSampling } from "./policy.js";
export type { LoopPolicy, LoopSampling, LoopCompletion } from "./policy.js";
export { tinkerLoopPolicy } from "./tinker-policy.js";
export type { TinkerLoopPolicy, TinkerLoopPolicyOptions } from "./tinker-policy.js";
