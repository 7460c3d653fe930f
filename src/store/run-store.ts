/**
 * @module store/run-store
 * One SQLite file per run (`run.sqlite`; its journal: journal.ts): config, state, steps, designs,
 * environments, episodes, samples, metrics; each unit of work one transaction, so a killed process
 * leaves whole units or none. Records to rows and back: inserts.ts, rows.ts; which rows a read
 * takes: query.ts.
 */
import Database from "better-sqlite3";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { SpadeError } from "../errors.js";
import {
  DESIGN_INSERT,
  ENVIRONMENT_INSERT,
  EPISODE_INSERT,
  type RowInsert,
  SAMPLE_INSERT,
} from "./inserts.js";
import { type FileIdentity, identityOf, isSameFile } from "./file-identity.js";
import { guardIo, requireStoreFile, runGone } from "./io-errors.js";
import { leaveWal, unreadableOnReadOnlyDisk, useWal } from "./journal.js";
import { jsonText } from "./rows.js";
import { LOCK_FILE, RunLock, type LockHolder } from "./lock.js";
import {
  ENVIRONMENT_ORDER,
  type EnvironmentFilter,
  selectSql,
  type StepRange,
  type StepTable,
  TABLE_ORDER,
} from "./query.js";
import { requireRunStore, SCHEMA_SQL, SCHEMA_VERSION, upgradeSchema } from "./schema.js";
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

/**
 * How long a statement waits for a lock another process holds on the store before E_RUN_LOCKED
 * naming it (io-errors.ts `storeLocked`): 5 s, better-sqlite3's default, which outlasts a reader's
 * short reads (the dashboard's) but not a read transaction left open in a `sqlite3` shell.
 */
export const BUSY_TIMEOUT_MS = 5_000;

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
  /** The file opened (device, inode): what `path` must still name for the run to write on. */
  readonly #identity: FileIdentity;
  /** What `environmentSummaries` selects: with `language` unless a store not yet upgraded lacks it. */
  readonly #summaryColumns: string;

  private constructor(
    path: string,
    db: Database.Database,
    lock: RunLock | null,
    identity: FileIdentity,
  ) {
    this.path = path;
    this.#db = db;
    this.#lock = lock;
    this.#identity = identity;
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
   * does); a damaged file is E_STORE_CORRUPT, an unwritable folder or a store that is not a file
   * (a folder, a FIFO) E_IO, a full disk E_DISK_FULL. A statement that finds the file locked by
   * another process waits `busyTimeoutMs` (default BUSY_TIMEOUT_MS) before E_RUN_LOCKED.
   */
  static open(
    dir: string,
    mode: "create" | "resume" | "read",
    { busyTimeoutMs = BUSY_TIMEOUT_MS }: { busyTimeoutMs?: number } = {},
  ): RunStore {
    const path = join(dir, STORE_FILE);
    if (mode !== "create" && !existsSync(path)) {
      throw new SpadeError("E_NOT_FOUND", `no run in ${dir} (${STORE_FILE} is missing)`, {
        nextStep: "give the folder a run was written to (--out)",
      });
    }
    if (mode !== "create") requireStoreFile(path);
    if (mode === "create") guardIo(path, () => makeFolder(dir));
    const lock = mode === "read" ? null : RunLock.acquire(dir);
    let db: Database.Database | undefined;
    try {
      if (mode === "create" && existsSync(path)) {
        throw new SpadeError("E_CONFIG", `${dir} already holds a run`, {
          nextStep: `resume it with --resume ${dir}, or choose another --out`,
        });
      }
      const opened = guardIo(
        path,
        () => new Database(path, { readonly: mode === "read", timeout: busyTimeoutMs }),
      );
      db = opened;
      const identity = guardIo(path, () => identityOf(path));
      // An empty file (cut to 0 bytes), another program's database or a run of another schema
      // opens as SQLite: refuse it before anything is written into it.
      if (mode !== "create") requireRunStore(opened, path);
      if (mode !== "read") {
        useWal(opened, path);
        // One transaction: a store is never left with tables but no schema_version.
        const schema = opened.transaction(() => {
          opened.exec(SCHEMA_SQL);
          upgradeSchema(opened);
          if (mode === "create")
            opened
              .prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)")
              .run(String(SCHEMA_VERSION));
        });
        guardIo(path, () => schema());
      }
      return new RunStore(path, opened, lock, identity);
    } catch (err) {
      db?.close();
      lock?.release();
      throw mode === "read" ? (unreadableOnReadOnlyDisk(err, path) ?? err) : err;
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
      store.checkInPlace(); // else the files by those names are another run's
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

  /**
   * E_NOT_FOUND (`runGone`) unless `path` still names the file this store opened
   * (file-identity.ts), not one deleted or moved, or another run's in a folder made again: SQLite
   * would go on writing to the open file, its rows lost unsaid, and files written by name
   * (metrics.jsonl) would land in the other run's folder.
   */
  checkInPlace(): void {
    if (!guardIo(this.path, () => isSameFile(this.path, this.#identity)))
      throw runGone(dirname(this.path), existsSync(this.path));
  }

  /** Runs `fn` in one transaction: all of its writes land, or none. First `checkInPlace`. */
  transaction<T>(fn: () => T): T {
    this.checkInPlace();
    return guardIo(this.path, () => this.#db.transaction(fn)());
  }

  /**
   * Closes the database and releases the folder's lock. A writer first leaves WAL mode
   * (journal.ts), so the closed run is one file a read-only disk can read. A store no longer at
   * `path` deletes no file by name (they may be another run's): not `leaveWal`, the lock, nor
   * SQLite's close (which, at process exit too, skips its checkpoint and deletions for a moved
   * file: SQLITE_FCNTL_HAS_MOVED).
   */
  close(): void {
    try {
      if (this.#db.open) {
        if (this.#lock !== null) leaveWal(this.#db, this.path, this.#identity);
        guardIo(this.path, () => this.#db.close());
      }
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
    ).run(key, jsonText(value));
  }

  /** Marks `step` as started (no-op when it already was). */
  beginStep(step: number): void {
    this.#prepare("INSERT OR IGNORE INTO steps (step, status) VALUES (?, 'running')").run(step);
  }

  /** Marks `step` done with its metrics. */
  completeStep(step: number, metrics: unknown): void {
    this.#prepare("UPDATE steps SET status = 'done', metrics = ? WHERE step = ?").run(
      jsonText(metrics),
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
    this.#insert(DESIGN_INSERT, d);
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
    this.#insert(ENVIRONMENT_INSERT, e);
  }

  updateStats(id: string, stats: EnvStats): void {
    this.#prepare("UPDATE environments SET stats = ? WHERE id = ?").run(jsonText(stats), id);
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
    this.#insert(EPISODE_INSERT, e);
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
    this.#insert(SAMPLE_INSERT, s);
  }

  /** Training samples of one step, or of every step from `fromStep` on, in key order. */
  samples(where: StepRange = {}): SampleRow[] {
    return this.#select("samples", "*", where).map(sampleFromRow);
  }

  /** Writes `record` as one row (inserts.ts). */
  #insert<R>(insert: RowInsert<R>, record: R): void {
    this.#prepare(insert.sql).run(...insert.values(record));
  }

  /** The rows `selectSql` selects (query.ts). */
  #select(
    table: StepTable,
    columns: string,
    where: StepRange & { envId?: string; source?: string },
  ): Row[] {
    const [sql, args] = selectSql(table, columns, where);
    return this.#prepare(sql).all(...args) as Row[];
  }

  /** Everything in the store as plain data in key order (for comparisons and export). */
  dump(): Record<string, unknown> {
    const all = (table: string, order: string) =>
      this.#prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all();
    return {
      meta: all("meta", "key"),
      state: all("state", "key"),
      steps: all("steps", "step"),
      designs: all("designs", TABLE_ORDER.designs),
      environments: all("environments", "id"),
      episodes: all("episodes", TABLE_ORDER.episodes),
      samples: all("samples", TABLE_ORDER.samples),
    };
  }
}
