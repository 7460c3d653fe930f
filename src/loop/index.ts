/**
 * @module loop
 * Public face of the self-play orchestrator.
 */
export { runSelfPlay, METRICS_FILE } from "./run.js";
export type { LoopDeps } from "./run.js";
export { formatWork } from "./progress.js";
export type { StepWork } from "./progress.js";
export { scoreStep } from "./score.js";
export type { ScoreInput, StepScore, StepMetrics } from "./score.js";
export {
  seedOf,
  playSeeds,
  designedEnvId,
  libraryEnvId,
  episodeRef,
  episodeOfRef,
  designRef,
} from "./keys.js";
export { agentSamples, fillAgentSamples, trimCounts } from "./score-agent.js";
export {
  dueDesigns,
  withEnvironments,
  designerSamples,
  updateLearningPotential,
} from "./score-designer.js";
export type { DueDesign, DueOptions, DesignerScore, DesignerScoreInput } from "./score-designer.js";
export { stepMetrics } from "./score-metrics.js";
export { envStats, windowPlays } from "./score-stats.js";
export { activeSkills, slotSkill } from "./schedule.js";
export { episodeOutcome } from "./outcome.js";
export { playsPerEnv } from "./play.js";
export { chatLoopPolicy, chatSampling, runSampling, hintSampling } from "./policy.js";
// The model server's outage breaker over a loop policy (policy/outage.ts).
export { watchedLoopPolicy } from "./policy.js";
export type { LoopPolicy, LoopSampling, LoopCompletion } from "./policy.js";
export { tinkerLoopPolicy } from "./tinker-policy.js";
export type { TinkerLoopPolicy, TinkerLoopPolicyOptions } from "./tinker-policy.js";
