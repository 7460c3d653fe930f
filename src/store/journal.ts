/**
 * @module store/journal
 * How run.sqlite is journaled. A writer keeps it in WAL mode: readers (the dashboard, `spade runs
 * show`) read while it writes. But SQLite reads a WAL store only beside a `-shm` file it can
 * create or finds there, so a store left in WAL mode cannot be read from a read-only disk. On
 * close the writer therefore folds the WAL into the file and switches it to a rollback journal:
 * a closed run is one self-contained file. A resume switches it back to WAL.
 */
import type Database from "better-sqlite3";
import { accessSync, constants } from "node:fs";
import { basename, dirname } from "node:path";
import { isSpadeError, SpadeError } from "../errors.js";
import { type FileIdentity, isSameFile } from "./file-identity.js";
import { guardIo } from "./io-errors.js";

/** Puts the store at `path`, opened to write, in WAL mode (what every writer writes in). */
export function useWal(db: Database.Database, path: string): void {
  guardIo(path, () => {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL"); // durable against a killed process; WAL keeps commits atomic
  });
}

/**
 * Folds the WAL of the store at `path` (the file `identity` was taken from when it was opened)
 * into the file and switches it to a rollback journal, so the closed store is one file that opens
 * read-only anywhere. Returns whether it did. It does not when another connection has the store
 * open (SQLite refuses at once: that reader's WAL and `-shm` then stay, and a read-only disk reads
 * them), when the disk fails, or when `path` no longer names this store's file (deleted, moved, or
 * its folder made again for another run): the switch deletes `path`-wal and `path`-shm by name,
 * which are then another run's, whose commits since its last checkpoint would be lost with them.
 * The store is then left in WAL mode, complete, as SQLite's own close leaves it; that close
 * checks the file's inode itself (SQLITE_FCNTL_HAS_MOVED) and deletes nothing when it moved.
 */
export function leaveWal(db: Database.Database, path: string, identity: FileIdentity): boolean {
  try {
    if (!isSameFile(path, identity)) return false;
    // FULL: in rollback-journal mode, NORMAL lets a power cut during the switch damage the file.
    db.pragma("synchronous = FULL");
    return db.pragma("journal_mode = DELETE", { simple: true }) === "delete";
  } catch {
    return false;
  }
}

/**
 * A reader's E_IO for `err`, a failed read-only open of the store at `path`, when its folder is
 * read-only: the store is still in WAL mode and has no `-shm` beside it (a run closed by a SPADE
 * before `leaveWal`, a folder copied without it), so the store's "cannot write" would mislead.
 * Null for any other failure.
 */
export function unreadableOnReadOnlyDisk(err: unknown, path: string): SpadeError | null {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  if (!isSpadeError(err, "E_IO") || cause?.code !== "SQLITE_CANTOPEN") return null;
  const dir = dirname(path);
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch {
    return new SpadeError(
      "E_IO",
      `cannot read ${path}: ${dir} is read-only, and SQLite must create ${basename(path)}-shm beside the store to read it`,
      { cause: err, nextStep: `copy ${dir} to a writable disk and read the copy` },
    );
  }
}
