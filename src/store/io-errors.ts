/**
 * @module store/io-errors
 * Turning what the disk and SQLite say (ENOSPC, EROFS, SQLITE_FULL, SQLITE_NOTADB...) into coded
 * errors with a next step. A full disk never loses committed work, so its message says how to
 * continue the run elsewhere; a run folder that went away under its run says so; a store that is
 * not a file at all (a folder, a FIFO) says what it is.
 */
import { existsSync, type Stats, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { SpadeError } from "../errors.js";
import { processesLocking } from "./lock-holders.js";

/** The `code` of a Node system error or a better-sqlite3 `SqliteError`, or null. */
function codeOf(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}

const DISK_FULL = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);
const NOT_WRITABLE = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * E_DISK_FULL's next step for a file of the run folder `runDir` (its store, lock, metrics.jsonl):
 * how to continue the run in place or from a copy.
 */
export function resumeRunStep(runDir: string): string {
  return `nothing committed is lost: free space and continue with spade run --resume ${runDir}, or copy ${runDir} to a disk with space and continue there with spade run --resume <the copy>`;
}

/**
 * E_NOT_FOUND for the run in `runDir` when its folder or store went away under a running process
 * (deleted or moved): the open store writes on to a file no name reaches, so "check the disk"
 * would send the user looking for a fault that is not there. `replaced`: `runDir` now holds
 * another run's store (the folder made again for a new run), which the next step must not send
 * the user to overwrite or resume.
 */
export function runGone(runDir: string, replaced = false): SpadeError {
  const what = `the run in ${runDir} is gone: its folder or run.sqlite was deleted or moved while the run wrote to it`;
  if (replaced) {
    return new SpadeError("E_NOT_FOUND", `${what}, and ${runDir} now holds another run`, {
      nextStep: `leave ${runDir} to that run; if this one was moved, continue it with spade run --resume <its new place>; if it was deleted, what it held is lost: restore it from a backup to another folder and continue it with spade run --resume <that folder>, or start a new run`,
    });
  }
  return new SpadeError("E_NOT_FOUND", what, {
    nextStep: `if it was moved, continue it with spade run --resume <its new place>; if it was deleted, what it held is lost: restore ${runDir} from a backup and continue with spade run --resume ${runDir}, or start a new run`,
  });
}

/** E_STORE_CORRUPT for the store file `path`, with `why` (SQLite's code and message, or what is missing). */
export function storeCorrupt(path: string, why: string, cause?: unknown): SpadeError {
  return new SpadeError("E_STORE_CORRUPT", `${path} is damaged or is not a run store (${why})`, {
    cause,
    nextStep:
      "restore it from a backup, or start a new run in another folder (--out); `sqlite3 run.sqlite .recover` may save what is left",
  });
}

/** Whether `code` is SQLite's for a lock another connection holds (SQLITE_BUSY, SQLITE_LOCKED, their extended codes). */
function isBusy(code: string): boolean {
  return /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}

/**
 * E_RUN_LOCKED for the store `path`, which SQLite found locked by another process past the busy
 * timeout (`cause`: its SQLITE_BUSY or SQLITE_LOCKED): a read transaction left open (a `sqlite3`
 * shell, a backup) keeps a resume from switching the store to WAL; a writer in exclusive locking
 * mode lets no reader in. Names the processes holding locks on the store or its `-shm` where the
 * system says (lock-holders.ts). The refused statement wrote nothing. `nextStep`: by default, how
 * a command or a run goes on.
 */
export function storeLocked(path: string, cause: unknown, nextStep?: string): SpadeError {
  const holders = processesLocking([path, `${path}-shm`]);
  const named = holders.map((h) => `${h.pid}${h.command === null ? "" : ` (${h.command})`}`);
  const who =
    named.length === 0
      ? "another process (this system does not say which)"
      : `${named.length === 1 ? "process" : "processes"} ${named.join(", ")}`;
  return new SpadeError("E_RUN_LOCKED", `${path} is locked by ${who} (${codeOf(cause)})`, {
    cause,
    nextStep:
      nextStep ??
      `nothing committed is lost: let that process finish, end its open transaction (a sqlite3 shell: COMMIT or ROLLBACK) or stop it, then run the command again; a run continues with spade run --resume ${dirname(path)}`,
  });
}

/**
 * The coded error for a failed store or run-folder operation on `path`, or null when `err` is
 * not an I/O or SQLite failure (a programming error, a constraint: those stay as they are).
 * E_DISK_FULL for a full disk or quota, E_STORE_CORRUPT for a damaged or foreign file,
 * E_RUN_LOCKED for a store another process holds locked (`storeLocked`), E_IO for the rest
 * (read-only or unwritable folder, other I/O errors). `onFull` is E_DISK_FULL's next step: by
 * default `path` is a file of a run folder and the run is resumed; a file elsewhere (an event
 * file, an eval result, a temporary file) says how its own command continues. A run
 * folder's file not found because the folder is no longer there is `runGone` (not its creation:
 * a `mkdir` that fails reports ENOENT for a read-only parent).
 */
export function storeIoError(err: unknown, path: string, onFull?: string): SpadeError | null {
  if (err instanceof SpadeError) return err;
  const code = codeOf(err);
  if (code === null) return null;
  const runDir = dirname(path);
  const syscall = (err as { syscall?: unknown }).syscall;
  if (onFull === undefined && code === "ENOENT" && syscall !== "mkdir" && !existsSync(runDir))
    return runGone(runDir);
  const message = err instanceof Error ? err.message : String(err);
  // Node's messages start with their code ("ENOSPC: no space left on device, write"); said once.
  const detail = message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
  if (DISK_FULL.has(code)) {
    return new SpadeError("E_DISK_FULL", `the disk holding ${path} is full (${code}: ${detail})`, {
      cause: err,
      nextStep: onFull ?? resumeRunStep(runDir),
    });
  }
  if (isBusy(code)) return storeLocked(path, err);
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) {
    return storeCorrupt(path, `${code}: ${detail}`, err);
  }
  if (
    NOT_WRITABLE.has(code) ||
    code.startsWith("SQLITE_READONLY") ||
    code.startsWith("SQLITE_CANTOPEN") ||
    code === "SQLITE_PERM" ||
    code === "SQLITE_AUTH"
  ) {
    return new SpadeError(
      "E_IO",
      `cannot write ${path}: the folder or file is read-only or not ours (${code}: ${detail})`,
      {
        cause: err,
        nextStep: `check the permissions and mount of ${runDir}, or give another folder (--out)`,
      },
    );
  }
  if (code.startsWith("SQLITE_IOERR") || /^E[A-Z]+$/.test(code)) {
    return new SpadeError("E_IO", `reading or writing ${path} failed (${code}: ${detail})`, {
      cause: err,
      nextStep: `check the disk holding ${runDir}`,
    });
  }
  return null;
}

/**
 * Runs `fn`, turning I/O and SQLite failures on `path` into coded errors (see `storeIoError`,
 * which takes `onFull`).
 */
export function guardIo<T>(path: string, fn: () => T, onFull?: string): T {
  try {
    return fn();
  } catch (err) {
    throw storeIoError(err, path, onFull) ?? err;
  }
}

/** What `stats` describe, for a store that is not a regular file; null for a regular file. */
function notAFile(stats: Stats): string | null {
  if (stats.isFile()) return null;
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * E_IO unless the store `path` (which exists) is a regular file or a link to one. SQLite would
 * call a folder's failed read a "disk I/O error", sending the user to check a sound disk, and
 * opening a FIFO to read waits, in the kernel, for a writer that never comes: the command hung,
 * and the dashboard with every request it served.
 */
export function requireStoreFile(path: string): void {
  const kind = notAFile(guardIo(path, () => statSync(path)));
  if (kind === null) return;
  const dir = dirname(path);
  throw new SpadeError(
    "E_IO",
    `${path} is ${kind}, not a file: a run's store is the SQLite file ${basename(path)}`,
    {
      nextStep: `give the folder a run was written to (--out); if that is ${dir}, its store was replaced: move ${path} out of the way and restore ${basename(path)} from a backup`,
    },
  );
}
