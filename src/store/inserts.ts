/**
 * @module store/inserts
 * How records are written as rows (the inverse of rows.ts): each table's INSERT, built from the
 * record's columns (rows.ts), so statement and values agree.
 */
import { storedLanguage } from "../env/language.js";
import { type Column, columnName, DESIGN, ENVIRONMENT, EPISODE, SAMPLE } from "./rows.js";
import type { DesignRow, EnvironmentRow, EpisodeRow, SampleRow } from "./types.js";

/** The INSERT of one row of a table and the values a record gives its placeholders, in order. */
export interface RowInsert<R> {
  readonly sql: string;
  values(record: R): unknown[];
}

/**
 * The INSERT into `table` of a record's `columns`, then of the `derived` ones, each with the
 * value it takes from the whole record.
 */
function rowInsert<R>(
  table: string,
  columns: { readonly [K in keyof R]?: Column<R[K]> },
  derived: ReadonlyArray<readonly [string, (record: R) => unknown]> = [],
): RowInsert<R> {
  const fields = Object.keys(columns) as (keyof R & string)[];
  const names = [...fields.map(columnName), ...derived.map(([name]) => name)];
  const marks = names.map(() => "?").join(", ");
  return {
    sql: `INSERT INTO ${table} (${names.join(", ")}) VALUES (${marks})`,
    values: (record) => [
      ...fields.map((field) => columns[field]!.write(record[field])),
      ...derived.map(([, value]) => value(record)),
    ],
  };
}

/** A design attempt as a `designs` row. */
export const DESIGN_INSERT = rowInsert<DesignRow>("designs", DESIGN);

/** An environment as an `environments` row (its language told from the code when not given). */
export const ENVIRONMENT_INSERT = rowInsert<EnvironmentRow>("environments", ENVIRONMENT, [
  ["language", (e) => e.language ?? storedLanguage(e.code)],
]);

/** An episode as an `episodes` row. */
export const EPISODE_INSERT = rowInsert<EpisodeRow>("episodes", EPISODE);

/** A training sample as a `samples` row. */
export const SAMPLE_INSERT = rowInsert<SampleRow>("samples", SAMPLE);
