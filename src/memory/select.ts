/**
 * @module memory/select
 * Which past environments the designer sees for one design attempt: the reference's
 * `high_regret_seeds` and `low_quality_examples`, pure, with the random source injected.
 */
import { SpadeError } from "../errors.js";
import type { EnvRecord, MemoryOptions, MemorySelection } from "./types.js";

function checkRecord(r: EnvRecord): void {
  if (
    !Number.isFinite(r.winRate) ||
    r.winRate < 0 ||
    r.winRate > 1 ||
    !Number.isFinite(r.regret) ||
    !Number.isFinite(r.createdStep)
  ) {
    throw new SpadeError(
      "E_RL_INPUT",
      `memory record ${r.id} has unusable stats (winRate ${r.winRate}, regret ${r.regret}, createdStep ${r.createdStep})`,
      {
        nextStep: "archive only environments whose plays were measured; win rates are in [0, 1]",
      },
    );
  }
}

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0)
    throw new SpadeError("E_CONFIG", `memory ${what} must be an integer >= 0 (got ${value})`);
  return value;
}

/** The last `windowSize` records by `createdStep` (ties keep their input order). */
export function memoryWindow(records: readonly EnvRecord[], windowSize = 200): EnvRecord[] {
  nonNegativeInteger(windowSize, "windowSize");
  for (const r of records) checkRecord(r);
  const ordered = records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.createdStep - b.r.createdStep || a.i - b.i);
  return ordered.slice(Math.max(0, ordered.length - windowSize)).map(({ r }) => r);
}

/**
 * Draws `n` items uniformly without replacement (partial Fisher-Yates), consuming one
 * `rand()` per item drawn.
 */
export function sampleWithoutReplacement<T>(
  items: readonly T[],
  n: number,
  rand: () => number,
): T[] {
  const pool = [...items];
  const count = Math.min(n, pool.length);
  for (let i = 0; i < count; i++) {
    const u = rand();
    if (!(u >= 0 && u < 1))
      throw new SpadeError(
        "E_RL_INPUT",
        `the random source must return numbers in [0, 1) (got ${u})`,
      );
    const j = i + Math.floor(u * (pool.length - i));
    [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
  }
  return pool.slice(0, count);
}

/**
 * The designer's memory for one design attempt of `skill`, over the window of the last
 * environments: `references` drawn from the top max(3 x references, topK) same-skill
 * environments by regret (highest first, older first on ties) among those with a win rate in
 * [0.15, 0.85]; then one same-skill environment to avoid, with a win rate above 0.9 or below 0.1,
 * drawn from the whole window. Draws references first, then the avoid example, from `rand`.
 */
export function selectMemory(
  records: readonly EnvRecord[],
  skill: string,
  rand: () => number,
  options: MemoryOptions = {},
): MemorySelection {
  const n = nonNegativeInteger(options.references ?? 2, "references");
  const topK = nonNegativeInteger(options.topK ?? 10, "topK");
  const lo = options.referenceMinWinRate ?? 0.15;
  const hi = options.referenceMaxWinRate ?? 0.85;
  const below = options.avoidBelow ?? 0.1;
  const above = options.avoidAbove ?? 0.9;
  const sameSkill = memoryWindow(records, options.windowSize ?? 200).filter(
    (r) => r.skill === skill,
  );

  const calibrated = sameSkill
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.winRate >= lo && r.winRate <= hi)
    .sort((a, b) => b.r.regret - a.r.regret || a.i - b.i)
    .map(({ r }) => r);
  const references = sampleWithoutReplacement(calibrated.slice(0, Math.max(3 * n, topK)), n, rand);

  const extremes = sameSkill.filter((r) => r.winRate > above || r.winRate < below);
  const [picked] = sampleWithoutReplacement(extremes, 1, rand);
  const avoid =
    picked === undefined
      ? null
      : {
          record: picked,
          reason: picked.winRate > above ? ("too easy" as const) : ("too hard" as const),
        };
  return { references, avoid };
}
