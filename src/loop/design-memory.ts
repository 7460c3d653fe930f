/**
 * @module loop/design-memory
 * What the design stage reads from the store before its slots run: the memory's records (the
 * last `memoryWindow` designed environments measured so far, after the library seeds) and the
 * dedupe archive (every earlier design, fingerprinted once per run). Neither read grows with the
 * run: the memory reads its window from the newest back, the archive only what is new.
 */
import { archivedProgram, DedupeIndex, type DedupeArchive } from "../designer/index.js";
import { librarySeedRecords, withLibrarySeeds, type EnvRecord } from "../memory/index.js";
import type { EnvironmentRow, EnvStats, RunStore } from "../store/index.js";
import type { LibraryProgram } from "./library.js";

/**
 * The memory's records: the last `windowSize` designed environments measured before `step`,
 * after the library seeds. The memory looks at no more than its window (`memoryWindow`), and
 * every design is newer than every seed, so reading only the window selects what reading every
 * environment would. `pending`: stats of steps scored but not committed (`--max-off-policy`),
 * laid over the stored ones; each can move at most one environment in or out of the stored
 * window, so the window plus the pending environments hold every record the memory selects.
 */
export function memoryRecords(
  store: RunStore,
  library: readonly LibraryProgram[],
  step: number,
  windowSize: number,
  pending: ReadonlyMap<string, EnvStats> = new Map(),
): EnvRecord[] {
  const stored = store.measuredDesigns({ beforeStep: step, limit: windowSize + pending.size });
  const ids = new Set(stored.map((e) => e.id));
  const rows = [...stored];
  for (const id of pending.keys()) {
    const row = ids.has(id) ? undefined : store.environment(id);
    if (row && row.source === "designer" && row.createdStep < step) rows.push(row);
  }
  const measured = rows
    .map((e) => ({ ...e, stats: pending.get(e.id) ?? e.stats }))
    .filter((e) => e.stats.winRate !== null)
    .sort(storeOrder)
    .slice(-windowSize);
  const archive: EnvRecord[] = measured.map((e) => ({
    id: e.id,
    name: e.name,
    skill: e.skill,
    description: e.description,
    code: e.code,
    winRate: e.stats.winRate as number,
    regret: e.stats.regret ?? 0,
    createdStep: e.createdStep,
  }));
  const seeds = librarySeedRecords(
    library.map((p) => ({
      name: p.name,
      skill: p.meta.skill,
      description: p.meta.description,
      code: p.source,
    })),
  );
  return withLibrarySeeds(archive, seeds);
}

/** The store's order of designed environments: by creation step, then slot, then id. */
function storeOrder(a: EnvironmentRow, b: EnvironmentRow): number {
  return (
    a.createdStep - b.createdStep ||
    (a.slot ?? -1) - (b.slot ?? -1) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** The dedupe archive of a store so far: the designs created before `before`, fingerprinted and indexed. */
interface ArchiveSoFar {
  before: number;
  index: DedupeIndex;
}

/**
 * Per open store: a design's program never changes once stored, so its fingerprint is made and
 * indexed once. A resumed run opens a new store, so its first call rebuilds the index from every
 * earlier design (one fingerprint each, then one append per shingle).
 */
const archives = new WeakMap<RunStore, ArchiveSoFar>();

/**
 * Programs a new design must not nearly duplicate: designs of earlier steps, in the store's
 * order, as an index that later calls do not change. Reads (and fingerprints) only the designs
 * created since the last call for `store`.
 */
export function dedupeArchive(store: RunStore, step: number): DedupeArchive {
  let archive = archives.get(store);
  if (!archive || archive.before > step) {
    archive = { before: 0, index: new DedupeIndex() };
    archives.set(store, archive);
  }
  if (step > archive.before) {
    for (const e of store.environments({
      source: "designer",
      fromStep: archive.before,
      beforeStep: step,
    }))
      archive.index.add(archivedProgram(e.id, e.name, e.code, e.description));
    archive.before = step;
  }
  return archive.index.view();
}
