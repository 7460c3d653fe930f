/**
 * @module memory/types
 * What the memory reads: archived environment records with their measured stats, and the
 * options of the selection.
 */

/** One archived environment with its measured stats (produced by the store). */
export interface EnvRecord {
  /** Stable id (the store's environment id; `library:<name>` for library seeds). */
  id: string;
  /** `meta.name`. */
  name: string;
  /** The skill it was designed for. */
  skill: string;
  /** `meta.description`, shown to the designer (the reference shows only a file name). */
  description: string;
  /** The program source. */
  code: string;
  /** Unhinted win rate in [0, 1]. */
  winRate: number;
  /** Mean hinted minus mean unhinted return. */
  regret: number;
  /** The training step that created it; library seeds use -1 so they are the oldest. */
  createdStep: number;
}

/** Options of `selectMemory`; defaults are the reference's. */
export interface MemoryOptions {
  /** Only the last this many environments (all skills, by `createdStep`) are considered. Default 200. */
  windowSize?: number;
  /** How many references to show. Default 2. */
  references?: number;
  /** References are drawn from the top max(3 x references, topK) by regret. Default 10. */
  topK?: number;
  /** Lowest win rate of a reference (inclusive). Default 0.15. */
  referenceMinWinRate?: number;
  /** Highest win rate of a reference (inclusive). Default 0.85. */
  referenceMaxWinRate?: number;
  /** An environment with a win rate below this is too hard (to avoid). Default 0.1. */
  avoidBelow?: number;
  /** An environment with a win rate above this is too easy (to avoid). Default 0.9. */
  avoidAbove?: number;
}

/** The environment the designer is told not to imitate, and why. */
export interface AvoidExample {
  record: EnvRecord;
  /** `too easy` (win rate above avoidAbove) or `too hard` (below avoidBelow). */
  reason: "too easy" | "too hard";
}

/** What the designer prompt shows for one design attempt. */
export interface MemorySelection {
  /** High-regret, well-calibrated environments of the same skill ("write a different one"). */
  references: EnvRecord[];
  /** One same-skill environment that was too easy or too hard, or null when there is none. */
  avoid: AvoidExample | null;
}
