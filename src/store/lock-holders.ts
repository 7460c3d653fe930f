/**
 * @module store/lock-holders
 * Which processes hold a lock on a store's files, so a store found locked can name them. SQLite
 * locks `run.sqlite` (and a WAL store's `-shm`) with POSIX byte-range locks, which Linux lists in
 * /proc/locks with the holder's PID. Elsewhere, or where that list cannot be read, none is named.
 */
import { readFileSync, statSync } from "node:fs";

/** A process holding a lock on a file. */
export interface LockingProcess {
  pid: number;
  /** Its command name (/proc/PID/comm: `sqlite3`, `node`), null when unreadable. */
  command: string | null;
}

/**
 * A file's identity as /proc/locks writes it: `MAJOR:MINOR:INODE`, major and minor in hex (at
 * least two digits). `dev` is `stat`'s, in glibc's encoding of a device number.
 */
export function procLocksId(dev: bigint, ino: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  const hex = (n: bigint) => n.toString(16).padStart(2, "0");
  return `${hex(major)}:${hex(minor)}:${ino}`;
}

/**
 * The PIDs, ascending and each once, of the processes `procLocks` (the text of /proc/locks) shows
 * holding a lock on one of the files `ids` (`procLocksId`). A process waiting for a lock (`->`)
 * holds none; an open file description lock has no PID (-1) and is left out.
 */
export function lockingPids(procLocks: string, ids: ReadonlySet<string>): number[] {
  const pids = new Set<number>();
  for (const line of procLocks.split("\n")) {
    // "1: POSIX  ADVISORY  READ 18154 fe:00:9994383 1073741826 1073742335"
    const m = /^\d+:\s+(->\s+)?\S+\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+:[0-9a-f]+:\d+)\s/.exec(line);
    if (!m || m[1] !== undefined) continue;
    const pid = Number(m[2]);
    if (pid > 0 && ids.has(m[3] as string)) pids.add(pid);
  }
  return [...pids].sort((a, b) => a - b);
}

/**
 * The processes other than `self` holding a lock on any of `paths` (those that exist), as
 * /proc/locks lists them; empty where it cannot be read.
 */
export function processesLocking(
  paths: readonly string[],
  self: number = process.pid,
): LockingProcess[] {
  let procLocks: string;
  const ids = new Set<string>();
  try {
    procLocks = readFileSync("/proc/locks", "utf8");
    for (const path of paths) {
      try {
        const { dev, ino } = statSync(path, { bigint: true });
        ids.add(procLocksId(dev, ino));
      } catch {
        // not there (a store in rollback-journal mode has no -shm)
      }
    }
  } catch {
    return [];
  }
  return lockingPids(procLocks, ids)
    .filter((pid) => pid !== self)
    .map((pid) => {
      try {
        return { pid, command: readFileSync(`/proc/${pid}/comm`, "utf8").trim() };
      } catch {
        return { pid, command: null };
      }
    });
}
