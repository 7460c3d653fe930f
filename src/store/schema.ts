/**
 * @module store/schema
 * The SQLite schema of one run. Keys are deterministic (step, slot, attempt, environment id,
 * episode index), never insertion order, so a resumed run writes exactly the rows an
 * uninterrupted one would, whatever order concurrent work finished in.
 */
import type Database from "better-sqlite3";

import { storedLanguage } from "../env/language.js";
import { SpadeError } from "../errors.js";
import { guardIo, storeCorrupt } from "./io-errors.js";

/** Bumped when the schema changes incompatibly; a store of another version is refused. */
export const SCHEMA_VERSION = 1;

/** DDL of a run store. JSON columns hold JSON text. */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- Named state saved with the run: sampler position, trainer checkpoint, RNG seeds.
CREATE TABLE IF NOT EXISTS state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- One row per training step; status 'running' until the step's batch is committed.
CREATE TABLE IF NOT EXISTS steps (
  step INTEGER PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('running', 'done')),
  metrics TEXT
);

-- Every design attempt: prompt, completion, program, validation report, grounding, references.
CREATE TABLE IF NOT EXISTS designs (
  step INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  repair_turn INTEGER NOT NULL,
  skill TEXT NOT NULL,
  doc_id TEXT,
  prompt TEXT NOT NULL,
  completion TEXT NOT NULL,
  program TEXT,
  outcome TEXT NOT NULL,
  report TEXT,
  duplicate_of TEXT,
  memory_refs TEXT NOT NULL,
  trainable INTEGER NOT NULL,
  tokens TEXT,
  env_id TEXT,
  weights_version INTEGER,
  PRIMARY KEY (step, slot, seq)
);

-- Environments: designed ones and library ones; stats are updated as plays accumulate.
CREATE TABLE IF NOT EXISTS environments (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  skill TEXT NOT NULL,
  description TEXT NOT NULL,
  code TEXT NOT NULL,
  meta TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('designer', 'library')),
  created_step INTEGER NOT NULL,
  slot INTEGER,
  doc_id TEXT,
  hint TEXT,
  stats TEXT NOT NULL,
  language TEXT NOT NULL
);
-- The store's order of environments, so the per-step reads (a step's pool, the environments
-- created since a step, the newest measured designs) do not scan the whole run.
CREATE INDEX IF NOT EXISTS environments_by_step ON environments (created_step, source, slot, id);

-- Every episode: messages, tokens when present, rewards, seed, hinted flag, failure.
CREATE TABLE IF NOT EXISTS episodes (
  step INTEGER NOT NULL,
  env_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  hinted INTEGER NOT NULL,
  return REAL NOT NULL,
  success INTEGER NOT NULL,
  turns INTEGER NOT NULL,
  failure TEXT,
  failure_code TEXT,
  rewards TEXT NOT NULL,
  transcript TEXT NOT NULL,
  trace TEXT,
  weights_version INTEGER,
  PRIMARY KEY (step, env_id, idx)
);

-- Training samples of both roles with the reward and advantage that were trained.
CREATE TABLE IF NOT EXISTS samples (
  step INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('agent', 'designer')),
  ref TEXT NOT NULL,
  reward REAL NOT NULL,
  advantage REAL NOT NULL,
  PRIMARY KEY (step, role, ref)
);
`;

/** Columns added to SCHEMA_VERSION 1 after its first stores were written: table, column, type. */
const ADDED_COLUMNS: ReadonlyArray<readonly [string, string, string]> = [
  ["designs", "weights_version", "INTEGER"],
  ["episodes", "weights_version", "INTEGER"],
];

/**
 * Brings a store of SCHEMA_VERSION 1 written before some of its columns existed up to the CREATE
 * TABLE text above, idempotently (run when a store opens for writing): adds each missing column
 * of `ADDED_COLUMNS` (its rows read null there), and `environments.language` (issue 17), told
 * from each row's code (`storedLanguage`).
 */
export function upgradeSchema(db: Database.Database): void {
  const hasColumn = (table: string, column: string) =>
    (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).some(
      (c) => c.name === column,
    );
  for (const [table, column, type] of ADDED_COLUMNS) {
    if (!hasColumn(table, column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  }
  if (!hasColumn("environments", "language")) {
    db.exec("ALTER TABLE environments ADD COLUMN language TEXT NOT NULL DEFAULT ''");
    const rows = db.prepare("SELECT id, code FROM environments").all() as Array<{
      id: string;
      code: string;
    }>;
    const set = db.prepare("UPDATE environments SET language = ? WHERE id = ?");
    for (const row of rows) set.run(storedLanguage(row.code), row.id);
  }
}

/** Whether `db` (the store at `path`) has the table `name`. */
function hasTable(db: Database.Database, path: string, name: string): boolean {
  const sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?";
  return guardIo(path, () => db.prepare(sql).get(name)) !== undefined;
}

/**
 * Refuses `db` (the store at `path`) unless it is a run store this SPADE reads, before anything
 * is written to it: E_STORE_CORRUPT when it has no meta table (an empty file, another program's
 * database, which open as SQLite all the same) or its meta table no `schema_version` (a store is
 * created with one, in the transaction that creates its tables), E_CONFIG when its schema
 * version is not SCHEMA_VERSION (a run written by another SPADE).
 */
export function requireRunStore(db: Database.Database, path: string): void {
  if (!hasTable(db, path, "meta"))
    throw storeCorrupt(path, "it has no meta table: empty, or another program's database");
  const sql = "SELECT value FROM meta WHERE key = 'schema_version'";
  const row = guardIo(path, () => db.prepare(sql).get()) as { value: unknown } | undefined;
  if (row === undefined)
    throw storeCorrupt(path, "its meta table has no schema_version: cut short, or edited");
  if (String(row.value) !== String(SCHEMA_VERSION)) {
    throw new SpadeError(
      "E_CONFIG",
      `${path} has schema version ${String(row.value)}, this SPADE reads ${SCHEMA_VERSION}`,
      { nextStep: "use the SPADE version that wrote the run" },
    );
  }
}
