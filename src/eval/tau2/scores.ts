/**
 * @module eval/tau2/scores
 * pass^k per domain from a results folder, computed as tau2 computes it: per task,
 * C(successes, k) / C(trials, k), averaged over tasks. pass^1 is the paper's tau2 column.
 */
import { readItemResults, type ItemResult } from "../run/index.js";

/** One domain's score. */
export interface Tau2DomainScore {
  /** Mean over tasks of (successful trials / trials). */
  passAt1: number;
  tasks: number;
  /** Trials per task (the smallest, should tasks differ). */
  trials: number;
  /** Samples that failed (harness or model errors), counted as unsuccessful. */
  failedSamples: number;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let out = 1;
  for (let i = 1; i <= k; i++) out = (out * (n - k + i)) / i;
  return out;
}

/** tau2's pass^k of one task: C(successes, k) / C(trials, k). */
export function passHatK(trials: number, successes: number, k: number): number {
  return choose(successes, k) / choose(trials, k);
}

/** pass^k per domain of the given items (item ids `<domain>/<task>`). */
export function tau2ScoresOf(items: readonly ItemResult[], k = 1): Record<string, Tau2DomainScore> {
  const byDomain = new Map<string, ItemResult[]>();
  for (const item of items) byDomain.set(item.group, [...(byDomain.get(item.group) ?? []), item]);
  const out: Record<string, Tau2DomainScore> = {};
  for (const [domain, list] of [...byDomain].sort(([a], [b]) => a.localeCompare(b))) {
    const rates = list.map((item) =>
      passHatK(item.samples.length, item.samples.filter((s) => s.success).length, k),
    );
    out[domain] = {
      passAt1: rates.reduce((a, b) => a + b, 0) / rates.length,
      tasks: list.length,
      trials: Math.min(...list.map((item) => item.samples.length)),
      failedSamples: list.reduce(
        (n, item) => n + item.samples.filter((s) => s.failure !== null).length,
        0,
      ),
    };
  }
  return out;
}

/**
 * pass^1 per domain of a `spade eval tau2` results folder (its `items/` files), for tables such
 * as `spade eval paper`. Domains without results are absent.
 */
export async function tau2PassAt1(outDir: string): Promise<Record<string, Tau2DomainScore>> {
  return tau2ScoresOf([...(await readItemResults(outDir)).values()]);
}
