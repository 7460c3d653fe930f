/**
 * @module rollout/episode
 * One multi-turn episode: reset, agent turns until terminated, truncated or the turn cap, the
 * return and success, and a transcript. How an episode ends is recorded (`outcome`). Under the
 * reference's semantics (`failures: "reference"`, `orchestrator.py` `play_game_async` /
 * `_play_game_tool_use_async`) a context overflow ends the episode as truncated with return 0,
 * and a malformed tool call is answered with an error observation, its turn masked out of
 * training, and the episode goes on; only other failures (server errors after retries, a crashed
 * environment) drop the episode. Under `failures: "drop"` those two drop it as well.
 */
import { describeError, isSpadeError, SpadeError } from "../errors.js";
import { episodeReturn, isSuccess, makeAction } from "../env/index.js";
import type { Action, Env, JsonObject, ToolResult } from "../env/index.js";
import { isMalformedToolCallError, type ChatTrace } from "../policy/index.js";

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
  /** True for a turn with a malformed tool call: the environment was not stepped, the observation is the error, and the turn is not trained. */
  masked?: boolean;
}

/**
 * How an episode ended: `terminated` (the environment ended it), `truncated` (the environment's
 * truncation or the turn cap), `overflow` (the conversation filled the context: truncated, return
 * 0, counted like any finished play), `dropped` (a failure: not scored, not trained).
 */
export type EpisodeOutcome = "terminated" | "truncated" | "overflow" | "dropped";

/** Which agent failures end an episode as data rather than dropping it. */
export type EpisodeFailureMode = "reference" | "drop";

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
  /** How the episode ended. */
  outcome: EpisodeOutcome;
  /** Turns (0-based) whose tool call was malformed: answered with an error and masked out of training. */
  maskedTurns: number[];
  /** Why the episode was dropped (environment or agent error), or null. Dropped episodes are not trained on. */
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
  /** At most this many agent turns, whatever the environment's `maxTurns` (the reference caps at 25). Default: no cap. */
  maxTurnsCap?: number | null;
  /**
   * `reference`: a context overflow (E_POLICY_CONTEXT) ends the episode as truncated with return 0;
   * a malformed tool call (E_POLICY_TOOL_CALL) is answered with `MALFORMED_TOOL_CALL_OBSERVATION`
   * and the episode goes on. `drop` (default): both drop the episode like any other failure.
   */
  failures?: EpisodeFailureMode;
}

/** What the agent is told after a malformed tool call (the reference's wording, `_play_game_tool_use_async`). */
export const MALFORMED_TOOL_CALL_OBSERVATION =
  'Your previous <tool_call> could not be parsed. Emit exactly: <tool_call>{"name": "<tool_name>", "arguments": {<args>}}</tool_call>';

/** The turns an episode of `env` may take: its `maxTurns`, capped by `cap` when set. */
export function turnLimit(envMaxTurns: number, cap: number | null | undefined): number {
  if (cap === null || cap === undefined) return envMaxTurns;
  if (!Number.isInteger(cap) || cap < 1)
    throw new SpadeError("E_CONFIG", `maxTurnsCap must be an integer >= 1 (got ${cap})`, {
      nextStep: "pass a positive turn cap, or none",
    });
  return Math.min(envMaxTurns, cap);
}

/** The default hint template (the reference's). */
export const DEFAULT_HINT_TEMPLATE = "{observation}\n\nHINT: {hint}";

/** An episode with no steps yet: no reward, no failure, ending as `outcome` unless changed. */
export function emptyEpisode(seed: number, hinted: boolean, outcome: Episode["outcome"]): Episode {
  return {
    seed,
    hinted,
    firstObservation: "",
    steps: [],
    return: 0,
    success: false,
    turns: 0,
    outcome,
    maskedTurns: [],
    failure: null,
    failureStage: null,
    failureCode: null,
  };
}

/** Plays one episode of `env` with `agent`. Never throws for the environment's or agent's sake. */
export async function runEpisode(
  env: Env,
  agent: Agent,
  options: EpisodeOptions,
): Promise<Episode> {
  const hinted = options.hinted ?? false;
  const reference = (options.failures ?? "drop") === "reference";
  const episode = emptyEpisode(options.seed, hinted, "truncated");
  let stage: FailureStage = "reset";
  try {
    const limit = turnLimit(env.meta.maxTurns, options.maxTurnsCap);
    const reset = await env.reset(options.seed);
    let observation = reset.observation;
    if (hinted) {
      stage = "hint";
      const hint = await env.hint();
      observation = (options.hintTemplate ?? DEFAULT_HINT_TEMPLATE)
        .replace("{observation}", () => observation)
        .replace("{hint}", () => hint);
    }
    episode.firstObservation = observation;
    let toolResults: ToolResult[] = [];
    for (let turn = 0; turn < limit; turn++) {
      stage = "agent";
      if (options.signal?.aborted) throw new SpadeError("E_CANCELLED", "the episode was cancelled");
      let action: Action;
      try {
        action = await agent({ env, observation, toolResults, turn });
      } catch (err) {
        if (reference && isSpadeError(err, "E_POLICY_CONTEXT")) {
          episode.outcome = "overflow";
          break;
        }
        if (reference && isMalformedToolCallError(err)) {
          observation = MALFORMED_TOOL_CALL_OBSERVATION;
          toolResults = [];
          episode.maskedTurns.push(turn);
          episode.steps.push({
            action: makeAction(err.text, []),
            observation,
            reward: 0,
            terminated: false,
            truncated: false,
            toolResults,
            info: {},
            masked: true,
          });
          continue;
        }
        throw err;
      }
      stage = "step";
      const result = await env.step(action);
      toolResults = result.toolResults ?? [];
      observation = result.observation;
      episode.steps.push({
        action,
        observation,
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated,
        toolResults,
        info: result.info,
      });
      if (result.terminated) episode.outcome = "terminated";
      if (result.terminated || result.truncated) break;
    }
  } catch (err) {
    episode.outcome = "dropped";
    episode.failure = `${stage}: ${describeError(err)}`;
    episode.failureStage = stage;
    episode.failureCode = isSpadeError(err) ? err.code : null;
  }
  if (agent.trace) episode.trace = agent.trace();
  episode.turns = episode.steps.length;
  // A context overflow is truncated with return 0 (the reference scores any unterminated episode 0).
  episode.return =
    episode.outcome === "overflow" ? 0 : episodeReturn(episode.steps.map((s) => s.reward));
  episode.success = episode.failure === null && isSuccess(episode.return);
  return episode;
}
