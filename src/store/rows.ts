/**
 * @module store/rows
 * How the store's SQL rows read back as records: each record's columns, field by field, with how
 * a value is stored and read back (inserts.ts writes rows from the same tables, so a column is
 * written and read one way); one mapper per record, the larger records built on the smaller ones
 * (a design's outcome, an environment without its program, an episode's result without its
 * messages), and the column lists the smaller records read.
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

/** A JSON column's text. */
export const jsonText = (value: unknown): string => JSON.stringify(value);
/** A JSON column's value. */
export const parse = <T>(text: unknown): T => JSON.parse(String(text)) as T;
/** A nullable JSON column's value (null for SQL NULL). */
export const parseOrNull = <T>(text: unknown): T | null =>
  text === null || text === undefined ? null : parse<T>(text);
const textOrNull = (value: unknown): string | null => (value === null ? null : String(value));

/** How a field's value is bound to its column's placeholder and read back from a row's value. */
export interface Column<T> {
  write(value: T): unknown;
  read(value: unknown): T;
}

/**
 * A record's columns by field, in the order of the table's INSERT; a field's column is its name
 * in snake_case (`repairTurn` is `repair_turn`).
 */
export type Columns<R> = { readonly [K in keyof R]-?: Column<R[K]> };

/** The column of a field: its name in snake_case. */
export const columnName = (field: string): string =>
  field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const NUMBER: Column<number> = { write: (v) => v, read: Number };
const NUMBER_OR_NULL: Column<number | null> = {
  write: (v) => v,
  read: (v) => (v === null ? null : Number(v)),
};
/** Written as NULL when absent; read as absent (left out of the record) for NULL or no column. */
const OPTIONAL_NUMBER: Column<number | undefined> = {
  write: (v) => v ?? null,
  read: (v) => (v === null || v === undefined ? undefined : Number(v)),
};
const TEXT: Column<string> = { write: (v) => v, read: String };
const TEXT_OR_NULL: Column<string | null> = { write: (v) => v, read: textOrNull };
/** 1 and 0. */
const BOOLEAN: Column<boolean> = { write: (v) => (v ? 1 : 0), read: (v) => v === 1 };
/** A string union the writer keeps to, stored and read as it is. */
const asIs = <T>(): Column<T> => ({ write: (v) => v, read: (v) => v as T });
const json = <T>(): Column<T> => ({ write: jsonText, read: parse<T> });
const jsonOrNull = <T>(): Column<T | null> => ({
  write: (v) => (v === null ? null : jsonText(v)),
  read: parseOrNull<T>,
});

/** The `designs` columns a `DesignOutcome` reads. */
export const DESIGN_OUTCOME: Columns<DesignOutcome> = {
  step: NUMBER,
  slot: NUMBER,
  seq: NUMBER,
  attempt: NUMBER,
  repairTurn: NUMBER,
  skill: TEXT,
  docId: TEXT_OR_NULL,
  outcome: TEXT,
  duplicateOf: TEXT_OR_NULL,
  trainable: BOOLEAN,
  envId: TEXT_OR_NULL,
};

/** Every `designs` column. */
export const DESIGN: Columns<DesignRow> = {
  ...DESIGN_OUTCOME,
  prompt: json(),
  completion: TEXT,
  program: TEXT_OR_NULL,
  report: jsonOrNull(),
  memoryRefs: json(),
  tokens: jsonOrNull(),
  weightsVersion: OPTIONAL_NUMBER,
};

/**
 * The `environments` columns an `EnvironmentSummary` reads, all but the program and `language`
 * (told from the code where a record leaves it out, and missing from stores not yet upgraded).
 */
export const ENVIRONMENT_SUMMARY: Columns<Omit<EnvironmentSummary, "language">> = {
  id: TEXT,
  name: TEXT,
  skill: TEXT,
  description: TEXT,
  meta: json(),
  source: asIs(),
  createdStep: NUMBER,
  slot: NUMBER_OR_NULL,
  docId: TEXT_OR_NULL,
  hint: TEXT_OR_NULL,
  stats: json(),
};

/** The `environments` columns but `language`. */
export const ENVIRONMENT: Columns<Omit<EnvironmentRow, "language">> = {
  ...ENVIRONMENT_SUMMARY,
  code: TEXT,
};

/** The `episodes` columns an `EpisodeScore` reads. */
export const EPISODE_SCORE: Columns<EpisodeScore> = {
  step: NUMBER,
  envId: TEXT,
  idx: NUMBER,
  seed: NUMBER,
  hinted: BOOLEAN,
  return: NUMBER,
  success: BOOLEAN,
  turns: NUMBER,
  failure: TEXT_OR_NULL,
  failureCode: TEXT_OR_NULL,
};

/** The `episodes` columns an `EpisodeResult` reads (all but the trace and weights version). */
export const EPISODE_RESULT: Columns<EpisodeResult> = {
  ...EPISODE_SCORE,
  rewards: json(),
  transcript: json(),
};

/** Every `episodes` column. */
export const EPISODE: Columns<EpisodeRow> = {
  ...EPISODE_RESULT,
  trace: jsonOrNull(),
  weightsVersion: OPTIONAL_NUMBER,
};

/** Every `samples` column. */
export const SAMPLE: Columns<SampleRow> = {
  step: NUMBER,
  role: asIs(),
  ref: TEXT,
  reward: NUMBER,
  advantage: NUMBER,
};

/** A row as better-sqlite3 returns it: column name to value. */
export type Row = Record<string, unknown>;

/** The record a row gives `columns`; a field that reads as undefined is left out. */
function fromRow<R>(columns: Columns<R>): (r: Row) => R {
  const fields = Object.keys(columns) as (keyof R & string)[];
  const named = fields.map((field) => [field, columnName(field), columns[field]] as const);
  return (r) => {
    const record: Partial<R> = {};
    for (const [field, column, codec] of named) {
      const value = codec.read(r[column]);
      if (value !== undefined) record[field] = value;
    }
    return record as R;
  };
}

/** The column list `columns` read, for a SELECT. */
const columnList = (columns: Columns<unknown>): string =>
  Object.keys(columns).map(columnName).join(", ");

/** Columns of `designs` a `DesignOutcome` reads. */
export const DESIGN_OUTCOME_COLUMNS = columnList(DESIGN_OUTCOME);

/** A `designs` row (at least `DESIGN_OUTCOME_COLUMNS`) as a design outcome. */
export const designOutcomeFromRow: (r: Row) => DesignOutcome = fromRow(DESIGN_OUTCOME);

/** A whole `designs` row as a design attempt. */
export const designFromRow: (r: Row) => DesignRow = fromRow(DESIGN);

/**
 * Columns of `environments` an `EnvironmentSummary` reads (all but the program; `language` is
 * added by the store where the column exists: a store not yet upgraded has none).
 */
export const ENVIRONMENT_SUMMARY_COLUMNS = columnList(ENVIRONMENT_SUMMARY);

const summaryFromRow = fromRow(ENVIRONMENT_SUMMARY);
const withoutLanguageFromRow = fromRow(ENVIRONMENT);

/** An `environments` row (at least `ENVIRONMENT_SUMMARY_COLUMNS`) as a summary. */
export function environmentSummaryFromRow(r: Row): EnvironmentSummary {
  return {
    ...summaryFromRow(r),
    ...(r.language ? { language: String(r.language) as StoredLanguage } : {}),
  };
}

/** A whole `environments` row as an environment (its language told from the code where the store has none yet). */
export function environmentFromRow(r: Row): EnvironmentRow {
  const environment = withoutLanguageFromRow(r);
  return {
    ...environment,
    language: (r.language
      ? String(r.language)
      : storedLanguage(environment.code)) as StoredLanguage,
  };
}

/** Columns of `episodes` an `EpisodeScore` reads. */
export const EPISODE_SCORE_COLUMNS = columnList(EPISODE_SCORE);

/** An `episodes` row (at least `EPISODE_SCORE_COLUMNS`) as an episode's score. */
export const episodeScoreFromRow: (r: Row) => EpisodeScore = fromRow(EPISODE_SCORE);

/** Columns of `episodes` an `EpisodeResult` reads (all but the trace). */
export const EPISODE_RESULT_COLUMNS = columnList(EPISODE_RESULT);

/** An `episodes` row (at least `EPISODE_RESULT_COLUMNS`) as an episode's result. */
export const episodeResultFromRow: (r: Row) => EpisodeResult = fromRow(EPISODE_RESULT);

/** A whole `episodes` row as an episode. */
export const episodeFromRow: (r: Row) => EpisodeRow = fromRow(EPISODE);

/** A `samples` row as a training sample. */
export const sampleFromRow: (r: Row) => SampleRow = fromRow(SAMPLE);
