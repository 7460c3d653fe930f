/**
 * @module rollout/transcript
 * The one JSON record of an episode's play, written the same way by the run store, `spade env
 * run --json` and the eval results.
 */
import type { AgentTrace, Episode, EpisodeOutcome, EpisodeStep } from "./episode.js";

/**
 * One turn of a transcript: an episode step, with `masked` present (true) only on a turn whose
 * malformed tool call was answered with an error and not trained.
 */
export type TranscriptStep = Omit<EpisodeStep, "masked"> & { masked?: true };

/** The record of one episode's play. */
export interface Transcript {
  /** The first observation as the agent saw it (hint included when hinted). */
  firstObservation: string;
  outcome: EpisodeOutcome;
  /** Turns (0-based) masked out of training. */
  maskedTurns: number[];
  steps: TranscriptStep[];
  /** The agent's chat messages, when asked for and the agent kept a trace. */
  messages?: AgentTrace["messages"];
}

/**
 * The transcript of `e`. `messages: true` adds the agent's chat messages (for readers of one
 * episode); the run store keeps the agent's trace in its own column and leaves them out.
 */
export function episodeTranscript(e: Episode, options: { messages: boolean }): Transcript {
  const steps = e.steps.map(
    (s): TranscriptStep => ({
      action: s.action,
      observation: s.observation,
      reward: s.reward,
      terminated: s.terminated,
      truncated: s.truncated,
      toolResults: s.toolResults,
      info: s.info,
      ...(s.masked ? { masked: true as const } : {}),
    }),
  );
  const transcript: Transcript = {
    firstObservation: e.firstObservation,
    outcome: e.outcome,
    maskedTurns: e.maskedTurns,
    steps,
  };
  if (options.messages && e.trace) transcript.messages = e.trace.messages;
  return transcript;
}
