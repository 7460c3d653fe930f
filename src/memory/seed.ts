/**
 * @module memory/seed
 * Seeding the memory from the built-in library, so the first designs already see references
 * before any designed environment has stats.
 */
import { libraryEnvId } from "../envs/index.js";
import { SpadeError } from "../errors.js";
import type { EnvRecord } from "./types.js";

/** A library environment offered as a memory seed. */
export interface LibrarySeed {
  /** `meta.name`. */
  name: string;
  /** `meta.skill`. */
  skill: string;
  /** `meta.description`. */
  description: string;
  /** The program source. */
  code: string;
  /** Measured unhinted win rate, when the library was played; else `defaultWinRate`. */
  winRate?: number;
  /** Measured regret, when known; else `defaultRegret`. */
  regret?: number;
}

/** Options of `librarySeedRecords`. */
export interface LibrarySeedOptions {
  /**
   * Win rate assumed for an unplayed library environment. Default 0.5: inside the reference
   * band, so seeds can be shown as references, never as things to avoid.
   */
  defaultWinRate?: number;
  /** Regret assumed for an unplayed library environment. Default 0: any design with positive regret outranks it. */
  defaultRegret?: number;
}

/**
 * Memory records for library environments: id `lib-<name>` (`libraryEnvId`, as the store) and `createdStep` -1, so they
 * are the oldest records and leave the window as designs accumulate.
 */
export function librarySeedRecords(
  seeds: readonly LibrarySeed[],
  options: LibrarySeedOptions = {},
): EnvRecord[] {
  const defaultWinRate = options.defaultWinRate ?? 0.5;
  const defaultRegret = options.defaultRegret ?? 0;
  if (!(defaultWinRate >= 0 && defaultWinRate <= 1) || !Number.isFinite(defaultRegret)) {
    throw new SpadeError(
      "E_CONFIG",
      `library seed defaults must be a win rate in [0, 1] and a finite regret (got ${defaultWinRate}, ${defaultRegret})`,
    );
  }
  return seeds.map((s) => ({
    id: libraryEnvId(s.name),
    name: s.name,
    skill: s.skill,
    description: s.description,
    code: s.code,
    winRate: s.winRate ?? defaultWinRate,
    regret: s.regret ?? defaultRegret,
    createdStep: -1,
  }));
}

/** The records the memory selects from: library seeds first (oldest), then the archive. */
export function withLibrarySeeds(
  archive: readonly EnvRecord[],
  seeds: readonly EnvRecord[],
): EnvRecord[] {
  return [...seeds, ...archive];
}
