/**
 * @module sandbox/host-dirs
 * The host's system directories as a jail shows them: a read-only bind where the host has a
 * directory, the same symlink where it has one (a merged /usr), nothing where it has neither.
 * Both Python jails build their roots from these: bubblewrap's for environment programs
 * (sandbox/python/jail.ts) and the code suites' own (eval/suites/code/isolation.ts).
 */
import { lstatSync, readlinkSync } from "node:fs";

/** One entry of a jail's root file system: a read-only bind of a host directory, or a symlink. */
export type RootEntry =
  | { kind: "bind"; path: string }
  | { kind: "link"; path: string; target: string };

/** `paths` as the host has them, in order: directories bound, symlinks kept, the missing left out. */
export function hostDirEntries(paths: readonly string[]): RootEntry[] {
  const entries: RootEntry[] = [];
  for (const path of paths) {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    if (stats.isSymbolicLink()) entries.push({ kind: "link", path, target: readlinkSync(path) });
    else if (stats.isDirectory()) entries.push({ kind: "bind", path });
  }
  return entries;
}
