/**
 * @module rollout/episode
 * One multi-turn episode: reset, agent turns until terminated, truncated or `maxTurns`, the
 * return and success, and a transcript. Failures (an environment error, an agent error) end the
 * episode with a recorded reason; they are never scored as a normal 0.
 */
import { describeError, isSpadeError, SpadeError } from "../errors.js";
import { episodeReturn, isSuccess } from "../env/index.js";
import type { Action, Env, JsonObject, ToolResult } from "../env/index.js";
import type { ChatTrace } from "../policy/index.js";

/** What the agent sees when asked for its next action. */
export interface AgentTurn {
  env: Env;
  /** The latest observation (the first one includes the hint when hinted). */
  observation: string;
  /** Tool results of the previous step, if any. */
  toolResults: ToolResult[];
  /** 0-based turn index. */
  turn: number;
}

/** What a model-backed agent said and sampled in an episode (messages, tokens, logprobs). */
export type AgentTrace = ChatTrace;

/** Anything that produces the next action; model-backed agents also expose their trace. */
export type Agent = ((turn: AgentTurn) => Promise<Action>) & { trace?: () => AgentTrace };

/** Where an episode failed: opening the environment (groups), reset, hint, the agent, or step. */
export type FailureStage = "open" | "reset" | "hint" | "agent" | "step";

/** One agent turn and the environment's answer. */
export interface EpisodeStep {
  action: Action;
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  toolResults: ToolResult[];
  info: JsonObject;
}

/** A finished episode. */
export interface Episode {
  seed: number;
  hinted: boolean;
  /** The first observation as the agent saw it (hint included when hinted). */
  firstObservation: string;
  steps: EpisodeStep[];
  /** Sum of rewards clamped to [-1, 1]. */
  return: number;
  success: boolean;
  turns: number;
  /** Why the episode failed (environment or agent error), or null. Failed episodes are not trained on. */
  failure: string | null;
  /** The stage that failed, or null. */
  failureStage: FailureStage | null;
  /** The failure's error code (e.g. `E_POLICY_TIMEOUT`), or null when none or the error had no code. */
  failureCode: string | null;
  /** The agent's trace, when the agent keeps one (chat agents do). */
  trace?: AgentTrace;
}

/** Settings of one episode. */
export interface EpisodeOptions {
  seed: number;
  /** Append the privileged hint to the first observation. Default false. */
  hinted?: boolean;
  /** How the hint is added; `{observation}` and `{hint}` are replaced. */
  hintTemplate?: string;
  /** Stops the episode before its next agent turn; it then fails with E_CANCELLED. */
  signal?: AbortSignal;
}

/** The default hint template (the reference's). */
export const DEFAULT_HINT_TEMPLATE = "{observation}\n\nHINT: {hint}";

/** Plays one episode of `env` with `agent`. Never throws for the environment's or agent's sake. */
export async function runEpisode(env: Env, agent: Agent, options: EpisodeOptions): Promise<Episode> {
  const hinted = options.hinted ?? false;
  const episode: Episode = { seed: options.seed, hinted, firstObservation: "", steps: [], return: 0, success: false, turns: 0, failure: null, failureStage: null, failureCode: null };
  let stage: FailureStage = "reset";
  try {
    const reset = await env.reset(options.seed);
    let observation = reset.observation;
    if (hinted) {
      stage = "hint";
      const hint = await env.hint();
      observation = (options.hintTemplate ?? DEFAULT_HINT_TEMPLATE).replace("{observation}", () => observation).replace("{hint}", () => hint);
    }
    episode.firstObservation = observation;
    let toolResults: ToolResult[] = [];
    for (let turn = 0; turn < env.meta.maxTurns; turn++) {
      stage = "agent";
      if (options.signal?.aborted) throw new SpadeError("E_CANCELLED", "the episode was cancelled");
      const action = await agent({ env, observation, toolResults, turn });
      stage = "step";
      const result = await env.step(action);
      toolResults = result.toolResults ?? [];
      observation = result.observation;
      episode.steps.push({ action, observation, reward: result.reward, terminated: result.terminated, truncated: result.truncated, toolResults, info: result.info });
      if (result.terminated || result.truncated) break;
    }
  } catch (err) {
    episode.failure = `${stage}: ${describeError(err)}`;
    episode.failureStage = stage;
    episode.failureCode = isSpadeError(err) ? err.code : null;
  }
  if (agent.trace) episode.trace = agent.trace();
  episode.turns = episode.steps.length;
  episode.return = episodeReturn(episode.steps.map((s) => s.reward));
  episode.success = episode.failure === null && isSuccess(episode.return);
  return episode;
}
