/**
 * @module store/file-identity
 * Which file a store is: its device and inode, taken when it was opened. A path only names what
 * is there now: a run folder deleted and made again (`rm -rf out && spade run --out out`) holds
 * another run's run.sqlite at the same path, which a check by name takes for this run's own.
 */
import { type BigIntStats, statSync } from "node:fs";

/** The device and inode of a file (bigint: an inode number may pass 2^53). */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
}

/** The identity of the file at `path` now (its errors are `statSync`'s: ENOENT when absent). */
export function identityOf(path: string): FileIdentity {
  const { dev, ino } = statSync(path, { bigint: true });
  return { dev, ino };
}

/**
 * Whether `path` still names the file `identity` was taken from: false when nothing is there or
 * another file is (a folder deleted and made again, a store moved away and another put in place).
 * An open file keeps its inode from being reused, so an equal pair is the same file.
 */
export function isSameFile(path: string, identity: FileIdentity): boolean {
  let now: BigIntStats;
  try {
    now = statSync(path, { bigint: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw err;
  }
  return now.dev === identity.dev && now.ino === identity.ino;
}
