/**
 * @module rl/regret
 * Regret (mean hinted return minus mean unhinted return) and the unhinted win rate of one
 * environment, from its plays. Failed plays are excluded, never scored.
 */
import { isSuccess } from "../env/index.js";
import { SpadeError } from "../errors.js";
import { mean, requireFinite, requireInRange } from "./check.js";

/**
 * One play of an environment, as regret needs it. These are fields of rollout's `Episode`, so
 * episodes can be passed as they are.
 */
export interface PlayOutcome {
  /** The seed passed to `reset`. Hinted and unhinted plays on one seed form a pair. */
  seed: number;
  /** True when the hint was shown. */
  hinted: boolean;
  /** Episode return in [-1, 1]. Ignored when the play failed. */
  return: number;
  /** Why the play failed (crash, timeout, malformed output), or null when it finished. */
  failure: string | null;
}

/** How hinted and unhinted plays are matched. */
export type RegretPairing = "paired" | "independent";

/** Options of `regret`. */
export interface RegretOptions {
  /**
   * `paired` (default): only seeds with at least one finished hinted and one finished unhinted
   * play count; each side is averaged per seed first, then over the kept seeds, so every seed
   * weighs the same and a failure drops its whole seed (pairwise exclusion).
   * `independent`: each side is the mean of its own finished plays, seeds ignored (the
   * reference's way, except that it scores a failed hinted play as 0).
   */
  pairing?: RegretPairing;
}

/** What `regret` found. */
export interface RegretResult {
  /** hintedMean - unhintedMean; 0 when either side has nothing to average (nothing to compare). */
  regret: number;
  /** Mean hinted return over what was kept, or null when nothing was. */
  hintedMean: number | null;
  /** Mean unhinted return over what was kept, or null when nothing was. */
  unhintedMean: number | null;
  /** Evidence behind it: seeds kept (`paired`), or the smaller of the two play counts kept (`independent`). */
  samples: number;
}

function finished(plays: readonly PlayOutcome[], hinted: boolean): PlayOutcome[] {
  return plays
    .filter((p) => p.hinted === hinted && p.failure === null)
    .map((p) => {
      requireInRange(
        p.return,
        -1,
        1,
        `return of the ${hinted ? "hinted" : "unhinted"} play on seed ${p.seed}`,
      );
      return p;
    });
}

function meanBySeed(plays: readonly PlayOutcome[]): Map<number, number> {
  const sums = new Map<number, { sum: number; count: number }>();
  for (const p of plays) {
    const acc = sums.get(p.seed) ?? { sum: 0, count: 0 };
    acc.sum += p.return;
    acc.count += 1;
    sums.set(p.seed, acc);
  }
  return new Map([...sums].map(([seed, { sum, count }]) => [seed, sum / count]));
}

/** Regret of one environment: mean hinted return minus mean unhinted return. */
export function regret(plays: readonly PlayOutcome[], options: RegretOptions = {}): RegretResult {
  const pairing = options.pairing ?? "paired";
  if (pairing !== "paired" && pairing !== "independent") {
    throw new SpadeError(
      "E_CONFIG",
      `regret pairing must be "paired" or "independent" (got ${String(pairing)})`,
    );
  }
  for (const p of plays) requireFinite(p.seed, "seed");
  const hinted = finished(plays, true);
  const unhinted = finished(plays, false);
  let hintedValues: number[];
  let unhintedValues: number[];
  if (pairing === "paired") {
    const byHinted = meanBySeed(hinted);
    const byUnhinted = meanBySeed(unhinted);
    const seeds = [...byUnhinted.keys()].filter((seed) => byHinted.has(seed));
    hintedValues = seeds.map((seed) => byHinted.get(seed) as number);
    unhintedValues = seeds.map((seed) => byUnhinted.get(seed) as number);
  } else {
    hintedValues = hinted.map((p) => p.return);
    unhintedValues = unhinted.map((p) => p.return);
  }
  const hintedMean = hintedValues.length > 0 ? mean(hintedValues) : null;
  const unhintedMean = unhintedValues.length > 0 ? mean(unhintedValues) : null;
  return {
    regret: hintedMean === null || unhintedMean === null ? 0 : hintedMean - unhintedMean,
    hintedMean,
    unhintedMean,
    samples: Math.min(hintedValues.length, unhintedValues.length),
  };
}

/**
 * Unhinted win rate: the fraction of finished unhinted plays that succeeded (return >= 0.99);
 * 0 when none finished. Hinted plays never count.
 */
export function winRate(plays: readonly PlayOutcome[]): number {
  const done = finished(plays, false);
  if (done.length === 0) return 0;
  return done.filter((p) => isSuccess(p.return)).length / done.length;
}

/**
 * Mean unhinted return of finished plays (0 when none finished): the reference's "win rate",
 * which equals `winRate` for environments whose returns are 0 or 1.
 */
export function meanUnhintedReturn(plays: readonly PlayOutcome[]): number {
  const done = finished(plays, false);
  return done.length === 0 ? 0 : mean(done.map((p) => p.return));
}
