/**
 * @module dashboard/store-read
 * Opening a run's store for the dashboard: read-only, never taking the run's lock (a running run
 * keeps writing; WAL lets it), with every way a folder can fail to be a readable run coded:
 * E_NOT_FOUND (no store), E_IO (a store that is a folder or a FIFO, a read-only disk),
 * E_STORE_CORRUPT, E_RUN_LOCKED (a writer holds SQLite's exclusive lock), E_CONFIG (a schema
 * this SPADE does not read, e.g. a run written by a newer version: `requireRunStore`).
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isSpadeError, SpadeError } from "../errors.js";
import {
  readHolder,
  requireRunStore,
  requireStoreFile,
  STORE_FILE,
  storeIoError,
  storeLocked,
  unreadableOnReadOnlyDisk,
} from "../store/index.js";

/** How long a read waits for a writer's lock before E_RUN_LOCKED. */
const BUSY_TIMEOUT_MS = 500;

/** The coded error for a failed read of `path`. */
export function readError(err: unknown, path: string): unknown {
  const coded = storeIoError(err, path) ?? err;
  if (isSpadeError(coded, "E_RUN_LOCKED"))
    return storeLocked(
      path,
      coded.cause,
      "the dashboard reads it again on the next refresh; if it stays locked, stop the process holding it",
    );
  // A store left in WAL without its -shm on a read-only disk: "cannot write" would mislead.
  return unreadableOnReadOnlyDisk(coded, path) ?? coded;
}

/** Runs `fn` on `db`, coding failures for `path`. */
export function guardRead<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw readError(err, path);
  }
}

/** A read-only connection to the store in `dir`, its schema version checked. Close it after use. */
export function openRunDb(dir: string): Database.Database {
  const path = join(dir, STORE_FILE);
  if (!existsSync(path)) {
    throw new SpadeError("E_NOT_FOUND", `no run in ${dir} (${STORE_FILE} is missing)`, {
      nextStep: "give the folder a run was written to (--out)",
    });
  }
  requireStoreFile(path);
  const db = guardRead(
    path,
    () => new Database(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS }),
  );
  try {
    guardRead(path, () => requireRunStore(db, path));
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Opens `dir`'s store, runs `fn`, closes it; failures are coded. */
export function withRunDb<T>(dir: string, fn: (db: Database.Database) => T): T {
  const db = openRunDb(dir);
  try {
    return guardRead(join(dir, STORE_FILE), () => fn(db));
  } finally {
    db.close();
  }
}

/** True while the process recorded as holding `dir`'s lock is alive (on this host; a remote holder counts as alive). */
export function writerAlive(dir: string): boolean {
  const holder = readHolder(dir);
  if (holder === null) return false;
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: unknown }).code === "EPERM";
  }
}
