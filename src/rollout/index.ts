/**
 * @module rollout
 * Public face of rollouts: one episode, agents that need no model.
 */
export { runEpisode, DEFAULT_HINT_TEMPLATE } from "./episode.js";
export type { Agent, AgentTrace, AgentTurn, Episode, EpisodeOptions, EpisodeStep, FailureStage } from "./episode.js";
export { oracleAgent, randomAgent } from "./agents.js";
