/**
 * @module store/rows
 * How the store's SQL rows read back as records: one mapper per record, the larger records built
 * on the smaller ones (a design's outcome, an environment without its program, an episode's
 * result without its messages), and the column lists the smaller records read.
 */
import { type StoredLanguage, storedLanguage } from "../env/language.js";
import type {
  DesignOutcome,
  DesignRow,
  EnvironmentRow,
  EnvironmentSummary,
  EpisodeResult,
  EpisodeRow,
  EpisodeScore,
  SampleRow,
} from "./types.js";

/** A row as better-sqlite3 returns it: column name to value. */
export type Row = Record<string, unknown>;

/** A JSON column's value. */
export const parse = <T>(text: unknown): T => JSON.parse(String(text)) as T;
/** A nullable JSON column's value (null for SQL NULL). */
export const parseOrNull = <T>(text: unknown): T | null =>
  text === null || text === undefined ? null : parse<T>(text);
const textOrNull = (value: unknown): string | null => (value === null ? null : String(value));

/** A row's `weightsVersion`, left out when it was not recorded (null, or no such column). */
function weightsVersionOf(r: Row): { weightsVersion?: number } {
  return r.weights_version === null || r.weights_version === undefined
    ? {}
    : { weightsVersion: Number(r.weights_version) };
}

/** Columns of `designs` a `DesignOutcome` reads. */
export const DESIGN_OUTCOME_COLUMNS =
  "step, slot, seq, attempt, repair_turn, skill, doc_id, outcome, duplicate_of, trainable, env_id";

/** A `designs` row (at least `DESIGN_OUTCOME_COLUMNS`) as a design outcome. */
export function designOutcomeFromRow(r: Row): DesignOutcome {
  return {
    step: Number(r.step),
    slot: Number(r.slot),
    seq: Number(r.seq),
    attempt: Number(r.attempt),
    repairTurn: Number(r.repair_turn),
    skill: String(r.skill),
    docId: textOrNull(r.doc_id),
    outcome: String(r.outcome),
    duplicateOf: textOrNull(r.duplicate_of),
    trainable: r.trainable === 1,
    envId: textOrNull(r.env_id),
  };
}

/** A whole `designs` row as a design attempt. */
export function designFromRow(r: Row): DesignRow {
  return {
    ...designOutcomeFromRow(r),
    prompt: parse(r.prompt),
    completion: String(r.completion),
    program: textOrNull(r.program),
    report: parseOrNull(r.report),
    memoryRefs: parse(r.memory_refs),
    tokens: parseOrNull(r.tokens),
    ...weightsVersionOf(r),
  };
}

/**
 * Columns of `environments` an `EnvironmentSummary` reads (all but the program; `language` is
 * added by the store where the column exists: a store not yet upgraded has none).
 */
export const ENVIRONMENT_SUMMARY_COLUMNS =
  "id, name, skill, description, meta, source, created_step, slot, doc_id, hint, stats";

/** An `environments` row (at least `ENVIRONMENT_SUMMARY_COLUMNS`) as a summary. */
export function environmentSummaryFromRow(r: Row): EnvironmentSummary {
  return {
    id: String(r.id),
    name: String(r.name),
    skill: String(r.skill),
    description: String(r.description),
    meta: parse(r.meta),
    source: r.source as EnvironmentSummary["source"],
    createdStep: Number(r.created_step),
    slot: r.slot === null ? null : Number(r.slot),
    docId: textOrNull(r.doc_id),
    hint: textOrNull(r.hint),
    stats: parse(r.stats),
    ...(r.language ? { language: String(r.language) as StoredLanguage } : {}),
  };
}

/** A whole `environments` row as an environment (its language told from the code where the store has none yet). */
export function environmentFromRow(r: Row): EnvironmentRow {
  const code = String(r.code);
  return {
    ...environmentSummaryFromRow(r),
    code,
    language: (r.language ? String(r.language) : storedLanguage(code)) as StoredLanguage,
  };
}

/** Columns of `episodes` an `EpisodeScore` reads. */
export const EPISODE_SCORE_COLUMNS =
  "step, env_id, idx, seed, hinted, return, success, turns, failure, failure_code";

/** An `episodes` row (at least `EPISODE_SCORE_COLUMNS`) as an episode's score. */
export function episodeScoreFromRow(r: Row): EpisodeScore {
  return {
    step: Number(r.step),
    envId: String(r.env_id),
    idx: Number(r.idx),
    seed: Number(r.seed),
    hinted: r.hinted === 1,
    return: Number(r.return),
    success: r.success === 1,
    turns: Number(r.turns),
    failure: textOrNull(r.failure),
    failureCode: textOrNull(r.failure_code),
  };
}

/** Columns of `episodes` an `EpisodeResult` reads (all but the trace). */
export const EPISODE_RESULT_COLUMNS = `${EPISODE_SCORE_COLUMNS}, rewards, transcript`;

/** An `episodes` row (at least `EPISODE_RESULT_COLUMNS`) as an episode's result. */
export function episodeResultFromRow(r: Row): EpisodeResult {
  return { ...episodeScoreFromRow(r), rewards: parse(r.rewards), transcript: parse(r.transcript) };
}

/** A whole `episodes` row as an episode. */
export function episodeFromRow(r: Row): EpisodeRow {
  return { ...episodeResultFromRow(r), trace: parseOrNull(r.trace), ...weightsVersionOf(r) };
}

/** A `samples` row as a training sample. */
export function sampleFromRow(r: Row): SampleRow {
  return {
    step: Number(r.step),
    role: r.role as SampleRow["role"],
    ref: String(r.ref),
    reward: Number(r.reward),
    advantage: Number(r.advantage),
  };
}
