/**
 * @module test/tmpfs
 * A real full disk for tests: a tiny tmpfs mounted on a test's own folder, and a real read-only
 * disk: the same tmpfs remounted read-only. Mounting needs root and a kernel that allows it;
 * where it does not, suites skip with the reason printed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skipOptional } from "./missing.js";

/** Why a tmpfs cannot be mounted here, or null when it can (tried once, on a scratch folder). */
function whyNoTmpfs(): string | null {
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  const probe = mkdtempSync(join(tmpdir(), "spade-tmpfs-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe]);
    return null;
  } catch {
    return "this machine does not allow mounting a tmpfs";
  } finally {
    rmdirSync(probe);
  }
}

/** For `describe.skipIf(skipWithoutTmpfs())`: true (the reason printed) when no tmpfs can be mounted. */
export function skipWithoutTmpfs(): boolean {
  return skipOptional(whyNoTmpfs());
}

/** Mounts a tmpfs of `size` (`8k`) on `dir`; returns the unmount (lazy, so a leaked descriptor cannot keep it). */
export function mountTmpfs(dir: string, size: string): () => void {
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  return () => execFileSync("umount", ["-l", dir]);
}

/** Remounts the tmpfs on `dir` (from `mountTmpfs`) read-only, or writable again with `writable`. */
export function remountTmpfs(dir: string, writable = false): void {
  execFileSync("mount", ["-o", `remount,${writable ? "rw" : "ro"}`, dir]);
}
