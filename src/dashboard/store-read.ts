/**
 * @module dashboard/store-read
 * Opening a run's store for the dashboard: read-only, never taking the run's lock (a running run
 * keeps writing; WAL lets it), with every way a folder can fail to be a readable run coded:
 * E_NOT_FOUND (no store), E_IO (a store that is a folder or a FIFO, a read-only disk),
 * E_STORE_CORRUPT, E_RUN_LOCKED (a writer holds SQLite's exclusive lock), E_CONFIG (a schema
 * this SPADE does not read, e.g. a run written by a newer version: `requireRunStore`). A locked
 * store is waited for on timers, never in SQLite's busy loop, which would stop the whole server.
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isSpadeError, SpadeError } from "../errors.js";
import {
  BUSY_TIMEOUT_MS,
  readHolder,
  requireRunStore,
  requireStoreFile,
  STORE_FILE,
  storeIoError,
  storeLocked,
  unreadableOnReadOnlyDisk,
} from "../store/index.js";

/** How a read meets a store another process holds locked. */
export interface LockedRead {
  /** How long SQLite waits for the lock, in a loop that holds the thread. */
  busyTimeoutMs: number;
  /** E_RUN_LOCKED's next step (default: the store's, how a command goes on). */
  nextStep?: string;
}

/**
 * The dashboard's reads: SQLite does not wait (`readWhenUnlocked` does, on timers). Its busy
 * timeout of 500 ms stopped the dashboard's one thread, and so every other request, for as long
 * as a page waited for a locked store: 500 ms for each store it read.
 */
export const DASHBOARD_READ: LockedRead = {
  busyTimeoutMs: 0,
  nextStep:
    "the dashboard reads it again on the next refresh; if it stays locked, stop the process holding it",
};

/** A command's reads (`spade runs export`): SQLite waits as a RunStore does (store/run-store.ts). */
export const COMMAND_READ: LockedRead = { busyTimeoutMs: BUSY_TIMEOUT_MS };

/** How long a dashboard read waits for a store another process holds locked, in all. */
export const LOCK_WAIT_MS = 500;
/** How often it tries again meanwhile. */
const LOCK_RETRY_MS = 20;

/**
 * `attempt()`, synchronous reads of stores (DASHBOARD_READ, which do not wait for a lock), tried
 * again every LOCK_RETRY_MS on a timer while `locked(result)`, for up to LOCK_WAIT_MS: the other
 * requests are served meanwhile. Returns the last result.
 */
export async function whileLocked<T>(attempt: () => T, locked: (result: T) => boolean): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const result = attempt();
    if (!locked(result) || Date.now() >= deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/** `read()`, tried again while it throws E_RUN_LOCKED (`whileLocked`); what it returns or throws last. */
export async function readWhenUnlocked<T>(read: () => T): Promise<T> {
  const outcome = await whileLocked(
    (): { value: T } | { error: unknown } => {
      try {
        return { value: read() };
      } catch (error) {
        return { error };
      }
    },
    (o) => "error" in o && isSpadeError(o.error, "E_RUN_LOCKED"),
  );
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * The coded error for a failed read of `path`; a locked store's E_RUN_LOCKED with `nextStep` (the
 * store's own when undefined).
 */
export function readError(err: unknown, path: string, nextStep: string | undefined): unknown {
  const coded = storeIoError(err, path) ?? err;
  if (isSpadeError(coded, "E_RUN_LOCKED")) return storeLocked(path, coded.cause, nextStep);
  // A store left in WAL without its -shm on a read-only disk: "cannot write" would mislead.
  return unreadableOnReadOnlyDisk(coded, path) ?? coded;
}

/** What reading a store threw (`readFailure`): the server's fault, whatever its code. */
const readFailures = new WeakSet<object>();

/** `err`, remembered as thrown reading a store. */
function readFailure(err: unknown): unknown {
  if (typeof err === "object" && err !== null) readFailures.add(err);
  return err;
}

/**
 * Whether reading a run's store threw `err` (through `openRunDb`, `withRunDb`): then it is the
 * server's fault, not the request's, whatever its code (http.ts `statusOf`: a store of another
 * schema version is E_CONFIG, as in the commands, but no request could change it).
 */
export function isReadFailure(err: unknown): boolean {
  return typeof err === "object" && err !== null && readFailures.has(err);
}

/** Runs `fn` on `db`, coding failures for `path` (`readError`) and remembering them (`isReadFailure`). */
export function guardRead<T>(path: string, fn: () => T, how: LockedRead = DASHBOARD_READ): T {
  try {
    return fn();
  } catch (err) {
    throw readFailure(readError(err, path, how.nextStep));
  }
}

/**
 * A read-only connection to the store in `dir`, its schema version checked; `how` it meets a
 * lock (the dashboard's by default). Close it after use.
 */
export function openRunDb(dir: string, how: LockedRead = DASHBOARD_READ): Database.Database {
  const path = join(dir, STORE_FILE);
  if (!existsSync(path)) {
    const missing = new SpadeError("E_NOT_FOUND", `no run in ${dir} (${STORE_FILE} is missing)`, {
      nextStep: "give the folder a run was written to (--out)",
    });
    throw readFailure(missing);
  }
  guardRead(path, () => requireStoreFile(path), how);
  const options = { readonly: true, fileMustExist: true, timeout: how.busyTimeoutMs };
  const db = guardRead(path, () => new Database(path, options), how);
  try {
    guardRead(path, () => requireRunStore(db, path), how);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Opens `dir`'s store (`openRunDb`), runs `fn`, closes it; failures are coded. */
export function withRunDb<T>(
  dir: string,
  fn: (db: Database.Database) => T,
  how: LockedRead = DASHBOARD_READ,
): T {
  const db = openRunDb(dir, how);
  try {
    return guardRead(join(dir, STORE_FILE), () => fn(db), how);
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
