/**
 * @module rollout
 * Public face of rollouts: one episode, groups of paired episodes, agents that need no model.
 */
export {
  runEpisode,
  turnLimit,
  DEFAULT_HINT_TEMPLATE,
  MALFORMED_TOOL_CALL_OBSERVATION,
} from "./episode.js";
export type {
  Agent,
  AgentTrace,
  AgentTurn,
  Episode,
  EpisodeFailureMode,
  EpisodeOptions,
  EpisodeOutcome,
  EpisodeStep,
  FailureStage,
} from "./episode.js";
export { episodeTranscript } from "./transcript.js";
export type { Transcript, TranscriptStep } from "./transcript.js";
export { oracleAgent, randomAgent } from "./agents.js";
export { runGroup, pairedSeeds, groupStats, DEFAULT_OPEN_CONCURRENCY } from "./group.js";
export type {
  AgentFactory,
  GroupEpisodeContext,
  GroupOptions,
  GroupResult,
  GroupStats,
} from "./group.js";
