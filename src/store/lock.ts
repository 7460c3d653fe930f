/**
 * @module store/lock
 * One writer per run folder. The lock is SQLite's exclusive lock on a small file, `run.lock`:
 * the kernel drops it when its process ends, however it ends, so a lock is never stale and a
 * folder left by a killed run is taken over at once. Who holds it (PID, host, start time) is
 * written beside it, in `run.lock.json`, so a refused process can name the holder.
 */
import Database from "better-sqlite3";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { SpadeError } from "../errors.js";
import { guardIo, storeIoError } from "./io-errors.js";

/** The file whose exclusive SQLite lock is the run folder's lock. Never deleted while in use. */
export const LOCK_FILE = "run.lock";
/** Who holds the lock, as JSON. */
export const HOLDER_FILE = "run.lock.json";

/** The process holding a run folder. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  startedAt: string;
}

/** The holder recorded in `dir`, or null when none is (or it is unreadable). */
export function readHolder(dir: string): LockHolder | null {
  try {
    const value = JSON.parse(readFileSync(join(dir, HOLDER_FILE), "utf8")) as Partial<LockHolder>;
    if (
      typeof value.pid !== "number" ||
      typeof value.host !== "string" ||
      typeof value.startedAt !== "string"
    )
      return null;
    return { pid: value.pid, host: value.host, startedAt: value.startedAt };
  } catch {
    return null;
  }
}

/** A held run-folder lock. */
export class RunLock {
  readonly #db: Database.Database;
  readonly #dir: string;
  /** The holder recorded by a process that ended without releasing (killed), when there was one. */
  readonly tookOverFrom: LockHolder | null;
  /** This process's record. */
  readonly holder: LockHolder;

  private constructor(
    dir: string,
    db: Database.Database,
    holder: LockHolder,
    tookOverFrom: LockHolder | null,
  ) {
    this.#dir = dir;
    this.#db = db;
    this.holder = holder;
    this.tookOverFrom = tookOverFrom;
  }

  /**
   * Takes the lock of `dir` (which must exist) at once, or throws E_RUN_LOCKED naming the
   * holder. I/O failures are coded as `storeIoError` codes them.
   */
  static acquire(dir: string, now: Date = new Date()): RunLock {
    const path = join(dir, LOCK_FILE);
    const db = guardIo(path, () => new Database(path, { timeout: 0 }));
    try {
      db.pragma("locking_mode = EXCLUSIVE");
      db.exec("BEGIN EXCLUSIVE; COMMIT"); // in exclusive locking mode the lock is kept until close
    } catch (err) {
      db.close();
      // Told apart before `storeIoError`, whose E_RUN_LOCKED names a store's lock holders.
      if ((err as { code?: unknown }).code !== "SQLITE_BUSY") throw storeIoError(err, path) ?? err;
      const holder = readHolder(dir);
      const who = holder
        ? `process ${holder.pid} on ${holder.host} (since ${holder.startedAt})`
        : "another process (which has not recorded itself yet)";
      throw new SpadeError("E_RUN_LOCKED", `${dir} is in use by ${who}`, {
        nextStep: holder
          ? `wait for process ${holder.pid} to finish or stop it, or give another folder`
          : "wait a moment and try again, or give another folder",
      });
    }
    const previous = readHolder(dir);
    const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: now.toISOString() };
    try {
      const temp = join(dir, `${HOLDER_FILE}.${process.pid}.tmp`);
      guardIo(join(dir, HOLDER_FILE), () => {
        writeFileSync(temp, `${JSON.stringify(holder)}\n`);
        renameSync(temp, join(dir, HOLDER_FILE));
      });
    } catch (err) {
      db.close();
      throw err;
    }
    return new RunLock(dir, db, holder, previous);
  }

  /**
   * Releases the lock: the record first, while still held, so no later holder's record is removed,
   * and only when it is this holder's: a folder deleted and made again under the run holds another
   * run's record by the same name. A record that cannot be removed (the folder turned read-only
   * under the run) is left: it names an ended process, which the next holder takes over from as
   * from a killed one, and throwing here would hide the failure that stopped the run.
   */
  release(): void {
    if (!this.#db.open) return;
    try {
      const recorded = readHolder(this.#dir);
      const mine =
        recorded?.pid === this.holder.pid &&
        recorded.host === this.holder.host &&
        recorded.startedAt === this.holder.startedAt;
      if (mine) rmSync(join(this.#dir, HOLDER_FILE), { force: true });
    } catch {
      // left behind, as a killed process leaves it
    } finally {
      this.#db.close();
    }
  }
}
