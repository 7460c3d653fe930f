/**
 * @module eval/run/summary
 * Pure scoring of a run: accuracy as pass@1 averaged over the K samples of each item, per
 * group and overall, with failed samples counted as wrong and reported separately.
 */
import type { ItemResult, SampleRecord } from "./types.js";

/** Accuracy of one group of items (or of all of them). */
export interface GroupSummary {
  /** The group name, or `overall`. */
  group: string;
  items: number;
  /** Samples played (items x K). */
  samples: number;
  /** Samples that succeeded. */
  correctSamples: number;
  /** Samples that failed (server error, sandbox error...); already counted as wrong. */
  failedSamples: number;
  /** Mean over items of (correct samples / samples): pass@1 averaged over K. 0 for no items. */
  accuracy: number;
}

/** An item's accuracy from its samples. */
export function itemAccuracy(samples: readonly SampleRecord[]): number {
  return samples.length === 0 ? 0 : samples.filter((s) => s.success).length / samples.length;
}

/** The summary of `items` under the name `group`. */
export function summarizeItems(group: string, items: readonly ItemResult[]): GroupSummary {
  const samples = items.flatMap((i) => i.samples);
  return {
    group,
    items: items.length,
    samples: samples.length,
    correctSamples: samples.filter((s) => s.success).length,
    failedSamples: samples.filter((s) => s.failure !== null).length,
    accuracy:
      items.length === 0
        ? 0
        : items.reduce((sum, i) => sum + itemAccuracy(i.samples), 0) / items.length,
  };
}

/**
 * Per-group summaries (groups in `order`, then any others in order of first appearance) and the
 * overall one, which weighs every item equally.
 */
export function summarize(
  items: readonly ItemResult[],
  order: readonly string[] = [],
): { groups: GroupSummary[]; overall: GroupSummary } {
  const names = [...order];
  for (const item of items) if (!names.includes(item.group)) names.push(item.group);
  const groups = names
    .map((name) =>
      summarizeItems(
        name,
        items.filter((i) => i.group === name),
      ),
    )
    .filter((g) => g.items > 0);
  return { groups, overall: summarizeItems("overall", items) };
}

/** A number as the tables print it: 3 decimals, or `N/A`. */
export function formatRate(value: number | null): string {
  return value === null ? "N/A" : value.toFixed(3);
}

/** The summary table as text, one row per group and the overall row last. */
export function summaryTable(
  groups: readonly GroupSummary[],
  overall: GroupSummary | null,
): string {
  const rows = overall ? [...groups, overall] : [...groups];
  const width = Math.max(5, ...rows.map((r) => r.group.length));
  const head = `${"group".padEnd(width)}  ${"items".padStart(6)}  ${"samples".padStart(7)}  ${"accuracy".padStart(8)}  ${"failed".padStart(6)}`;
  const lines = rows.map(
    (r) =>
      `${r.group.padEnd(width)}  ${String(r.items).padStart(6)}  ${String(r.samples).padStart(7)}  ${formatRate(r.accuracy).padStart(8)}  ${String(r.failedSamples).padStart(6)}`,
  );
  return [head, ...lines].join("\n");
}
