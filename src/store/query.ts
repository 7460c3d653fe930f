/**
 * @module store/query
 * Which rows a read selects, and in what order: step ranges, environment filters and each
 * table's key order, as the SQL of one SELECT.
 */

/** Which steps a query reads: one step, every step from `fromStep` on, and/or those before `beforeStep`. */
export interface StepRange {
  step?: number;
  fromStep?: number;
  beforeStep?: number;
}

/** Which environments a query reads: created in the steps of the range, of one source when given. */
export type EnvironmentFilter = StepRange & { source?: "designer" | "library" };

/** Environments in the store's order: by creation step, designed before library ones on a step, then slot and id. */
export const ENVIRONMENT_ORDER = "created_step, source, slot, id";

/** The order each table's rows are read in: their key (environments: `ENVIRONMENT_ORDER`). */
export const TABLE_ORDER = {
  designs: "step, slot, seq",
  environments: ENVIRONMENT_ORDER,
  episodes: "step, env_id, idx",
  samples: "step, role, ref",
} as const;

/** A table `selectSql` reads. */
export type StepTable = keyof typeof TABLE_ORDER;

/** A WHERE clause for `range` over `column` plus extra conditions. */
function stepClause(
  range: StepRange,
  extra: Array<[string, unknown]>,
  column: string,
): [string, unknown[]] {
  const conditions: Array<[string, unknown]> = [...extra];
  if (range.step !== undefined) conditions.push([`${column} = ?`, range.step]);
  if (range.fromStep !== undefined) conditions.push([`${column} >= ?`, range.fromStep]);
  if (range.beforeStep !== undefined) conditions.push([`${column} < ?`, range.beforeStep]);
  return [
    conditions.length ? `WHERE ${conditions.map((c) => c[0]).join(" AND ")}` : "",
    conditions.map((c) => c[1]),
  ];
}

/**
 * The SELECT of `columns` of the rows of `table` in the steps of `where` (over the table's step
 * column: `created_step` for environments) and of its environment or source when given, in the
 * table's order; with its parameters.
 */
export function selectSql(
  table: StepTable,
  columns: string,
  where: StepRange & { envId?: string; source?: string },
): [string, unknown[]] {
  const extra: Array<[string, unknown]> = [];
  if (where.envId !== undefined) extra.push(["env_id = ?", where.envId]);
  if (where.source !== undefined) extra.push(["source = ?", where.source]);
  const [clause, args] = stepClause(
    where,
    extra,
    table === "environments" ? "created_step" : "step",
  );
  return [`SELECT ${columns} FROM ${table} ${clause} ORDER BY ${TABLE_ORDER[table]}`, args];
}
