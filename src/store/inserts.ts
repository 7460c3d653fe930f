/**
 * @module store/inserts
 * How records are written as rows (the inverse of rows.ts): each table's INSERT, built from one
 * list of columns with the value each takes from the record, so statement and values agree.
 */
import { storedLanguage } from "../env/language.js";
import type { DesignRow, EnvironmentRow, EpisodeRow, SampleRow } from "./types.js";

/** A JSON column's text. */
export const jsonText = (value: unknown): string => JSON.stringify(value);
const jsonOrNull = (value: unknown): string | null => (value === null ? null : jsonText(value));

/** The INSERT of one row of a table and the values a record gives its placeholders, in order. */
export interface RowInsert<R> {
  readonly sql: string;
  values(record: R): unknown[];
}

/** The INSERT into `table` of `columns`, each with the value it takes from the record. */
function rowInsert<R>(
  table: string,
  columns: ReadonlyArray<readonly [string, (record: R) => unknown]>,
): RowInsert<R> {
  const names = columns.map(([name]) => name).join(", ");
  const marks = columns.map(() => "?").join(", ");
  return {
    sql: `INSERT INTO ${table} (${names}) VALUES (${marks})`,
    values: (record) => columns.map(([, value]) => value(record)),
  };
}

/** A design attempt as a `designs` row. */
export const DESIGN_INSERT = rowInsert<DesignRow>("designs", [
  ["step", (d) => d.step],
  ["slot", (d) => d.slot],
  ["seq", (d) => d.seq],
  ["attempt", (d) => d.attempt],
  ["repair_turn", (d) => d.repairTurn],
  ["skill", (d) => d.skill],
  ["doc_id", (d) => d.docId],
  ["prompt", (d) => jsonText(d.prompt)],
  ["completion", (d) => d.completion],
  ["program", (d) => d.program],
  ["outcome", (d) => d.outcome],
  ["report", (d) => jsonOrNull(d.report)],
  ["duplicate_of", (d) => d.duplicateOf],
  ["memory_refs", (d) => jsonText(d.memoryRefs)],
  ["trainable", (d) => (d.trainable ? 1 : 0)],
  ["tokens", (d) => jsonOrNull(d.tokens)],
  ["env_id", (d) => d.envId],
  ["weights_version", (d) => d.weightsVersion ?? null],
]);

/** An environment as an `environments` row (its language told from the code when not given). */
export const ENVIRONMENT_INSERT = rowInsert<EnvironmentRow>("environments", [
  ["id", (e) => e.id],
  ["name", (e) => e.name],
  ["skill", (e) => e.skill],
  ["description", (e) => e.description],
  ["code", (e) => e.code],
  ["meta", (e) => jsonText(e.meta)],
  ["source", (e) => e.source],
  ["created_step", (e) => e.createdStep],
  ["slot", (e) => e.slot],
  ["doc_id", (e) => e.docId],
  ["hint", (e) => e.hint],
  ["stats", (e) => jsonText(e.stats)],
  ["language", (e) => e.language ?? storedLanguage(e.code)],
]);

/** An episode as an `episodes` row. */
export const EPISODE_INSERT = rowInsert<EpisodeRow>("episodes", [
  ["step", (e) => e.step],
  ["env_id", (e) => e.envId],
  ["idx", (e) => e.idx],
  ["seed", (e) => e.seed],
  ["hinted", (e) => (e.hinted ? 1 : 0)],
  ["return", (e) => e.return],
  ["success", (e) => (e.success ? 1 : 0)],
  ["turns", (e) => e.turns],
  ["failure", (e) => e.failure],
  ["failure_code", (e) => e.failureCode],
  ["rewards", (e) => jsonText(e.rewards)],
  ["transcript", (e) => jsonText(e.transcript)],
  ["trace", (e) => jsonOrNull(e.trace)],
  ["weights_version", (e) => e.weightsVersion ?? null],
]);

/** A training sample as a `samples` row. */
export const SAMPLE_INSERT = rowInsert<SampleRow>("samples", [
  ["step", (s) => s.step],
  ["role", (s) => s.role],
  ["ref", (s) => s.ref],
  ["reward", (s) => s.reward],
  ["advantage", (s) => s.advantage],
]);
