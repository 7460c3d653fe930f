/**
 * @module store/run-store
 * One SQLite file per run (`run.sqlite` in the run folder, WAL): config, state, steps, design
 * attempts, environments, episodes, training samples, metrics. Each unit of work is written in
 * one transaction, so a process killed at any point leaves whole units or none.
 */
import Database from "better-sqlite3";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SpadeError } from "../errors.js";
import { guardIo } from "./io-errors.js";
import { LOCK_FILE, RunLock, type LockHolder } from "./lock.js";
import { storedLanguage } from "../env/language.js";
import { SCHEMA_SQL, SCHEMA_VERSION, upgradeSchema } from "./schema.js";
import {
  DESIGN_OUTCOME_COLUMNS,
  designFromRow,
  designOutcomeFromRow,
  ENVIRONMENT_SUMMARY_COLUMNS,
  environmentFromRow,
  environmentSummaryFromRow,
  EPISODE_RESULT_COLUMNS,
  episodeFromRow,
  episodeResultFromRow,
  parse,
  parseOrNull,
  type Row,
  sampleFromRow,
} from "./rows.js";
import type {
  DesignOutcome,
  DesignRow,
  EnvironmentRow,
  EnvironmentSummary,
  EnvStats,
  EpisodeResult,
  EpisodeRow,
  SampleRow,
  StepRow,
} from "./types.js";

/** File name of the database inside a run folder. */
export const STORE_FILE = "run.sqlite";

const json = (value: unknown): string => JSON.stringify(value);

/** Which steps a query reads: one step, every step from `fromStep` on, and/or those before `beforeStep`. */
export interface StepRange {
  step?: number;
  fromStep?: number;
  beforeStep?: number;
}

/** A WHERE clause for `range` over `column` plus extra conditions. */
function stepClause(
  range: StepRange,
  extra: Array<[string, unknown]> = [],
  column = "step",
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

/** Which environments a query reads: created in the steps of the range, of one source when given. */
export type EnvironmentFilter = StepRange & { source?: "designer" | "library" };

/** Environments in the store's order: by creation step, designed before library ones on a step, then slot and id. */
const ENVIRONMENT_ORDER = "created_step, source, slot, id";

/** The order each table's rows are read in: their key (environments: `ENVIRONMENT_ORDER`). */
const TABLE_ORDER = {
  designs: "step, slot, seq",
  environments: ENVIRONMENT_ORDER,
  episodes: "step, env_id, idx",
  samples: "step, role, ref",
} as const;

/**
 * Creates `dir` (and missing parents). The folder itself is made first without `recursive`,
 * whose errors lose their cause (a read-only parent reads as ENOENT), so EROFS / EACCES show.
 */
function makeFolder(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "EEXIST") return;
    if (code !== "ENOENT") throw err;
    mkdirSync(dir, { recursive: true });
  }
}

/** The part of a prepared statement the store uses, with failures coded. */
interface Statement {
  run(...params: unknown[]): Database.RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The store of one run. Synchronous (better-sqlite3): every method is one short transaction. */
export class RunStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #lock: RunLock | null;
  /** What `environmentSummaries` selects: with `language` unless a store not yet upgraded lacks it. */
  readonly #summaryColumns: string;

  private constructor(path: string, db: Database.Database, lock: RunLock | null) {
    this.path = path;
    this.#db = db;
    this.#lock = lock;
    const columns = guardIo(path, () => db.prepare("PRAGMA table_info(environments)").all());
    this.#summaryColumns = (columns as Row[]).some((c) => c.name === "language")
      ? `${ENVIRONMENT_SUMMARY_COLUMNS}, language`
      : ENVIRONMENT_SUMMARY_COLUMNS;
  }

  /** The holder a killed process left recorded on the folder this store took over, if any. */
  get tookOverFrom(): LockHolder | null {
    return this.#lock?.tookOverFrom ?? null;
  }

  /** `sql` prepared, its failures coded (E_IO, E_DISK_FULL, E_STORE_CORRUPT). */
  #prepare(sql: string): Statement {
    const io = <T>(fn: () => T): T => guardIo(this.path, fn);
    const statement = io(() => this.#db.prepare(sql));
    return {
      run: (...params) => io(() => statement.run(...params)),
      get: (...params) => io(() => statement.get(...params)),
      all: (...params) => io(() => statement.all(...params)),
    };
  }

  /**
   * Opens the store in `dir`. `mode: "create"` refuses a folder that already has a run;
   * `"resume"` refuses one that has none; `"read"` opens an existing run read-only. A store
   * opened to write holds the folder's lock until `close` (E_RUN_LOCKED while another process
   * does); a damaged file is E_STORE_CORRUPT, an unwritable folder E_IO, a full disk E_DISK_FULL.
   */
  static open(dir: string, mode: "create" | "resume" | "read"): RunStore {
    const path = join(dir, STORE_FILE);
    if (mode !== "create" && !existsSync(path)) {
      throw new SpadeError("E_NOT_FOUND", `no run in ${dir} (${STORE_FILE} is missing)`, {
        nextStep: "give the folder a run was written to (--out)",
      });
    }
    if (mode === "create") guardIo(path, () => makeFolder(dir));
    const lock = mode === "read" ? null : RunLock.acquire(dir);
    let db: Database.Database | undefined;
    try {
      if (mode === "create" && existsSync(path)) {
        throw new SpadeError("E_CONFIG", `${dir} already holds a run`, {
          nextStep: `resume it with --resume ${dir}, or choose another --out`,
        });
      }
      const opened = guardIo(path, () => new Database(path, { readonly: mode === "read" }));
      db = opened;
      if (mode !== "read") {
        guardIo(path, () => {
          opened.pragma("journal_mode = WAL");
          opened.pragma("synchronous = NORMAL"); // durable against a killed process; WAL keeps commits atomic
          opened.exec(SCHEMA_SQL);
          upgradeSchema(opened);
        });
      }
      const store = new RunStore(path, opened, lock);
      if (mode === "create") store.setMeta("schema_version", String(SCHEMA_VERSION));
      const version = store.getMeta("schema_version");
      if (version !== String(SCHEMA_VERSION)) {
        throw new SpadeError(
          "E_CONFIG",
          `${path} has schema version ${version}, this SPADE reads ${SCHEMA_VERSION}`,
          { nextStep: "use the SPADE version that wrote the run" },
        );
      }
      return store;
    } catch (err) {
      db?.close();
      lock?.release();
      throw err;
    }
  }

  /**
   * Removes the run in `dir` when it never began a step (a start that failed after creating the
   * store: an unreadable corpus, a refused engine), so the folder can take a new run: its store
   * files and lock record, under its lock. Returns false, removing nothing, when a step began.
   */
  static discardUnstarted(dir: string): boolean {
    const store = RunStore.open(dir, "resume");
    let removed = false;
    try {
      if (store.steps().length > 0) return false;
      guardIo(store.path, () => {
        store.#db.close();
        for (const suffix of ["", "-wal", "-shm", "-journal"])
          rmSync(`${store.path}${suffix}`, { force: true });
      });
      removed = true;
      return true;
    } finally {
      store.close();
      if (removed) rmSync(join(dir, LOCK_FILE), { force: true });
    }
  }

  /** Runs `fn` in one transaction: all of its writes land, or none. */
  transaction<T>(fn: () => T): T {
    return guardIo(this.path, () => this.#db.transaction(fn)());
  }

  /** Closes the database and releases the folder's lock. */
  close(): void {
    try {
      if (this.#db.open) guardIo(this.path, () => this.#db.close());
    } finally {
      this.#lock?.release();
    }
  }

  getMeta(key: string): string | undefined {
    const row = this.#prepare("SELECT value FROM meta WHERE key = ?").get(key) as Row | undefined;
    return row === undefined ? undefined : String(row.value);
  }

  setMeta(key: string, value: string): void {
    this.#prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(key, value);
  }

  /** A named JSON state value (sampler position, trainer checkpoint, ...). */
  getState<T>(key: string): T | undefined {
    const row = this.#prepare("SELECT value FROM state WHERE key = ?").get(key) as Row | undefined;
    return row === undefined ? undefined : parse<T>(row.value);
  }

  setState(key: string, value: unknown): void {
    this.#prepare(
      "INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(key, json(value));
  }

  /** Marks `step` as started (no-op when it already was). */
  beginStep(step: number): void {
    this.#prepare("INSERT OR IGNORE INTO steps (step, status) VALUES (?, 'running')").run(step);
  }

  /** Marks `step` done with its metrics. */
  completeStep(step: number, metrics: unknown): void {
    this.#prepare("UPDATE steps SET status = 'done', metrics = ? WHERE step = ?").run(
      json(metrics),
      step,
    );
  }

  steps(): StepRow[] {
    return (
      this.#prepare("SELECT step, status, metrics FROM steps ORDER BY step").all() as Row[]
    ).map((r) => ({
      step: Number(r.step),
      status: r.status as StepRow["status"],
      metrics: parseOrNull(r.metrics),
    }));
  }

  /** Number of completed steps (steps are completed in order). */
  doneSteps(): number {
    return Number(
      (this.#prepare("SELECT COUNT(*) AS n FROM steps WHERE status = 'done'").get() as Row).n,
    );
  }

  insertDesign(d: DesignRow): void {
    this.#prepare(
      `INSERT INTO designs (step, slot, seq, attempt, repair_turn, skill, doc_id, prompt, completion, program, outcome, report, duplicate_of, memory_refs, trainable, tokens, env_id, weights_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.step,
      d.slot,
      d.seq,
      d.attempt,
      d.repairTurn,
      d.skill,
      d.docId,
      json(d.prompt),
      d.completion,
      d.program,
      d.outcome,
      d.report === null ? null : json(d.report),
      d.duplicateOf,
      json(d.memoryRefs),
      d.trainable ? 1 : 0,
      d.tokens === null ? null : json(d.tokens),
      d.envId,
      d.weightsVersion ?? null,
    );
  }

  /** Design attempts of the steps of `where` (one, from `fromStep` on, before `beforeStep`), in key order. */
  designs(where: StepRange = {}): DesignRow[] {
    return this.#select("designs", "*", where).map(designFromRow);
  }

  /** The outcomes of the design attempts `designs(where)` returns (no prompt, completion, program or tokens). */
  designOutcomes(where: StepRange = {}): DesignOutcome[] {
    return this.#select("designs", DESIGN_OUTCOME_COLUMNS, where).map(designOutcomeFromRow);
  }

  insertEnvironment(e: EnvironmentRow): void {
    this.#prepare(
      `INSERT INTO environments (id, name, skill, description, code, meta, source, created_step, slot, doc_id, hint, stats, language)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      e.id,
      e.name,
      e.skill,
      e.description,
      e.code,
      json(e.meta),
      e.source,
      e.createdStep,
      e.slot,
      e.docId,
      e.hint,
      json(e.stats),
      e.language ?? storedLanguage(e.code),
    );
  }

  updateStats(id: string, stats: EnvStats): void {
    this.#prepare("UPDATE environments SET stats = ? WHERE id = ?").run(json(stats), id);
  }

  environment(id: string): EnvironmentRow | undefined {
    const row = this.#prepare("SELECT * FROM environments WHERE id = ?").get(id) as Row | undefined;
    return row === undefined ? undefined : environmentFromRow(row);
  }

  /**
   * Environments in the store's order (oldest first), all of them or those of one `source`
   * created in the steps of `range` (indexed by creation step).
   */
  environments(where: EnvironmentFilter = {}): EnvironmentRow[] {
    return this.#select("environments", "*", where).map(environmentFromRow);
  }

  /** The environments `environments(where)` returns without their programs (what scoring reads). */
  environmentSummaries(where: EnvironmentFilter = {}): EnvironmentSummary[] {
    return this.#select("environments", this.#summaryColumns, where).map(environmentSummaryFromRow);
  }

  /**
   * The last `limit` designed environments created before `beforeStep` whose stats have a win
   * rate (the memory's archive), oldest first in the store's order. Reads back from the newest
   * along the creation-step index, so its cost does not grow with the run.
   */
  measuredDesigns(where: { beforeStep: number; limit: number }): EnvironmentRow[] {
    const newestFirst = `created_step DESC, source DESC, slot DESC, id DESC`;
    return (
      this.#prepare(
        `SELECT * FROM (SELECT * FROM environments
           WHERE source = 'designer' AND created_step < ? AND json_extract(stats, '$.winRate') IS NOT NULL
           ORDER BY ${newestFirst} LIMIT ?)
         ORDER BY ${ENVIRONMENT_ORDER}`,
      ).all(where.beforeStep, where.limit) as Row[]
    ).map(environmentFromRow);
  }

  insertEpisode(e: EpisodeRow): void {
    this.#prepare(
      `INSERT INTO episodes (step, env_id, idx, seed, hinted, return, success, turns, failure, failure_code, rewards, transcript, trace, weights_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      e.step,
      e.envId,
      e.idx,
      e.seed,
      e.hinted ? 1 : 0,
      e.return,
      e.success ? 1 : 0,
      e.turns,
      e.failure,
      e.failureCode,
      json(e.rewards),
      json(e.transcript),
      e.trace === null ? null : json(e.trace),
      e.weightsVersion ?? null,
    );
  }

  /** Episodes, filtered by step (one, from `fromStep` on, before `beforeStep`) and/or environment, in key order. */
  episodes(where: StepRange & { envId?: string } = {}): EpisodeRow[] {
    return this.#select("episodes", "*", where).map(episodeFromRow);
  }

  /** The episodes `episodes(where)` returns without their traces (what scoring reads). */
  episodeResults(where: StepRange & { envId?: string } = {}): EpisodeResult[] {
    return this.#select("episodes", EPISODE_RESULT_COLUMNS, where).map(episodeResultFromRow);
  }

  /** The environments with episodes stored at `step`, by id. */
  playedAt(step: number): string[] {
    return (
      this.#prepare("SELECT DISTINCT env_id FROM episodes WHERE step = ? ORDER BY env_id").all(
        step,
      ) as Row[]
    ).map((r) => String(r.env_id));
  }

  insertSample(s: SampleRow): void {
    this.#prepare(
      "INSERT INTO samples (step, role, ref, reward, advantage) VALUES (?, ?, ?, ?, ?)",
    ).run(s.step, s.role, s.ref, s.reward, s.advantage);
  }

  /** Training samples of one step, or of every step from `fromStep` on, in key order. */
  samples(where: StepRange = {}): SampleRow[] {
    return this.#select("samples", "*", where).map(sampleFromRow);
  }

  /**
   * `columns` of the rows of `table` in the steps of `where` (over the table's step column) and
   * of its environment or source when given, in the table's order.
   */
  #select(
    table: keyof typeof TABLE_ORDER,
    columns: string,
    where: StepRange & { envId?: string; source?: string },
  ): Row[] {
    const extra: Array<[string, unknown]> = [];
    if (where.envId !== undefined) extra.push(["env_id = ?", where.envId]);
    if (where.source !== undefined) extra.push(["source = ?", where.source]);
    const [clause, args] = stepClause(
      where,
      extra,
      table === "environments" ? "created_step" : "step",
    );
    return this.#prepare(
      `SELECT ${columns} FROM ${table} ${clause} ORDER BY ${TABLE_ORDER[table]}`,
    ).all(...args) as Row[];
  }

  /** Everything in the store as plain data in key order (for comparisons and export). */
  dump(): Record<string, unknown> {
    const all = (table: string, order: string) =>
      this.#prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all();
    return {
      meta: all("meta", "key"),
      state: all("state", "key"),
      steps: all("steps", "step"),
      designs: all("designs", "step, slot, seq"),
      environments: all("environments", "id"),
      episodes: all("episodes", "step, env_id, idx"),
      samples: all("samples", "step, role, ref"),
    };
  }
}
