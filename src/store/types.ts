/**
 * @module store/types
 * The records a run store holds, as the rest of SPADE sees them.
 */
import type { CheckReport, EnvMeta, Json, StoredLanguage } from "../env/index.js";

/** Statistics of one environment over the plays of its window. */
export interface EnvStats {
  /** Steps whose plays count toward the window so far. */
  plays: number;
  /** Unhinted success rate over the window (null before any non-failed play). */
  winRate: number | null;
  /** Mean hinted return minus mean unhinted return over the window (null when not measurable). */
  regret: number | null;
  /** Raw designer reward before centring and scaling (null until assigned or for library envs). */
  designerReward: number | null;
  /** What the designer sample of this environment was trained with (null until assigned). */
  designerAdvantage: number | null;
  /** The step whose batch carried the designer sample (null until then). */
  rewardStep: number | null;
}

/** What scoring reads of a design attempt: its key, skill, outcome and what it produced. */
export interface DesignOutcome {
  step: number;
  slot: number;
  /** Position among the slot's completions (attempts and their repair turns, in order). */
  seq: number;
  /** Attempt number (each attempt has a fresh document). */
  attempt: number;
  /** 0 for the answer to a fresh prompt, 1.. for repair turns. */
  repairTurn: number;
  skill: string;
  docId: string | null;
  /** `valid`, `invalid`, `duplicate`, `no-program`, `completion-failed`. */
  outcome: string;
  duplicateOf: string | null;
  /** True for the one attempt per slot whose completion is trained on. */
  trainable: boolean;
  /** The environment this attempt produced, when valid. */
  envId: string | null;
}

/** One design attempt. */
export interface DesignRow extends DesignOutcome {
  /** The chat messages sent to the designer. */
  prompt: Json;
  completion: string;
  /** The extracted program, or null when none was found. */
  program: string | null;
  report: CheckReport | null;
  /** Ids of the memory references and the environment to avoid that the prompt showed. */
  memoryRefs: Json;
  /** Prompt/response tokens and logprobs when the backend gave them. */
  tokens: Json | null;
  /** The weights version the completion was sampled with (see `EpisodeRow.weightsVersion`); absent when not recorded. */
  weightsVersion?: number;
}

/** An environment without its program: what scoring reads. */
export interface EnvironmentSummary {
  /** `d<step>-<slot>` for designed environments, `lib-<name>` for library ones. */
  id: string;
  name: string;
  skill: string;
  description: string;
  meta: EnvMeta;
  source: "designer" | "library";
  createdStep: number;
  slot: number | null;
  docId: string | null;
  /** A model-written hint (hint mode `model`), or null to use the program's `hint()`. */
  hint: string | null;
  stats: EnvStats;
  /** The code's language; told from the code when the row is stored (`storedLanguage`), so writers may leave it out. */
  language?: StoredLanguage;
}

/** An environment in the pool or the archive. */
export interface EnvironmentRow extends EnvironmentSummary {
  code: string;
}

/** What lists and statistics read of an episode: its key and result, no messages. */
export interface EpisodeScore {
  step: number;
  envId: string;
  /** Position in its group: unhinted first, then hinted. */
  idx: number;
  seed: number;
  hinted: boolean;
  return: number;
  success: boolean;
  turns: number;
  failure: string | null;
  failureCode: string | null;
}

/** An episode without its trace: what scoring reads (the transcript says how it ended). */
export interface EpisodeResult extends EpisodeScore {
  rewards: number[];
  /** First observation and steps (actions, observations, rewards, tool results). */
  transcript: Json;
}

/** One stored episode. */
export interface EpisodeRow extends EpisodeResult {
  /** The agent's messages and per-turn tokens/logprobs when recorded. */
  trace: Json | null;
  /**
   * The weights the episode was sampled with: v = the weights after step v - 1's training, 0 the
   * run's initial weights (`--max-off-policy`: behind the step by up to K + 1). Absent when not
   * recorded (rows of stores written before the column existed).
   */
  weightsVersion?: number;
}

/** One training sample as trained. */
export interface SampleRow {
  step: number;
  role: "agent" | "designer";
  /** `<envId>/<idx>` for agent episodes of the step, `<step>/<slot>/<seq>` for designs. */
  ref: string;
  reward: number;
  advantage: number;
}

/** One step's status and metrics. */
export interface StepRow {
  step: number;
  status: "running" | "done";
  metrics: Json | null;
}

/** Stats of an environment nobody has played yet. */
export const EMPTY_STATS: EnvStats = Object.freeze({
  plays: 0,
  winRate: null,
  regret: null,
  designerReward: null,
  designerAdvantage: null,
  rewardStep: null,
});
