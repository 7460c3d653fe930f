/**
 * @module loop/design-memory
 * What the design stage reads from the store before its slots run: the memory's records (the
 * designed environments measured so far, after the library seeds) and the dedupe archive.
 */
import { archivedProgram, type ArchivedProgram } from "../designer/index.js";
import { librarySeedRecords, withLibrarySeeds, type EnvRecord } from "../memory/index.js";
import type { RunStore } from "../store/index.js";
import type { LibraryProgram } from "./library.js";

/** The memory's records: designed environments measured before `step`, after the library seeds. */
export function memoryRecords(
  store: RunStore,
  library: readonly LibraryProgram[],
  step: number,
): EnvRecord[] {
  const archive: EnvRecord[] = [];
  for (const e of store.environments()) {
    if (e.source !== "designer" || e.createdStep >= step || e.stats.winRate === null) continue;
    archive.push({
      id: e.id,
      name: e.name,
      skill: e.skill,
      description: e.description,
      code: e.code,
      winRate: e.stats.winRate,
      regret: e.stats.regret ?? 0,
      createdStep: e.createdStep,
    });
  }
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

/** Programs a new design must not nearly duplicate: designs of earlier steps. */
export function dedupeArchive(store: RunStore, step: number): ArchivedProgram[] {
  return store
    .environments()
    .filter((e) => e.source === "designer" && e.createdStep < step)
    .map((e) => archivedProgram(e.id, e.name, e.code, e.description));
}
