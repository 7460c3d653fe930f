/**
 * @module rollout
 * Public face of rollouts: one episode, groups of paired episodes, agents that need no model.
 */
export { runEpisode, DEFAULT_HINT_TEMPLATE } from "./episode.js";
export type { Agent, AgentTrace, AgentTurn, Episode, EpisodeOptions, EpisodeStep, FailureStage } from "./episode.js";
export { oracleAgent, randomAgent } from "./agents.js";
export { runGroup, pairedSeeds, groupStats, DEFAULT_OPEN_CONCURRENCY } from "./group.js";
export type { AgentFactory, GroupEpisodeContext, GroupOptions, GroupResult, GroupStats } from "./group.js";
