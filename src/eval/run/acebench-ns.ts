/**
 * @module eval/run/acebench-ns
 * ACEBench normal and special entries as evaluation tasks, and their scores from finished items:
 * per category as upstream's eval_main.py (averaged over samples), per group the plain mean of
 * the categories' accuracies as the SPADE reference's suite reports ACEBench-N and ACEBench-S.
 */
import {
  AceNsEnv,
  groupMean,
  loadNsEntries,
  scoreVerdicts,
  type NsCategory,
  type NsEntry,
} from "../acebench/index.js";
import type { EvalTask, ItemResult } from "./types.js";

/** One entry as a task (group: its category). */
export interface AceNsTask extends EvalTask {
  entry: NsEntry;
}

/** The entries of `categories` (the first `limit` of each) from the acebench folder `dir`. */
export function aceNsEntries(
  dir: string,
  categories: readonly NsCategory[],
  limit?: number,
): Map<NsCategory, NsEntry[]> {
  return new Map(
    categories.map((c) => {
      const all = loadNsEntries(dir, c);
      return [c, limit === undefined ? all : all.slice(0, limit)] as const;
    }),
  );
}

/** Tasks over the entries, in category order. */
export function aceNsTasks(entries: Map<NsCategory, NsEntry[]>): AceNsTask[] {
  return [...entries.values()].flat().map((entry) => ({
    id: entry.id,
    group: entry.category,
    entry,
    open: () => new AceNsEnv(entry),
  }));
}

/** One category's score. */
export interface AceNsCategoryScore {
  category: NsCategory;
  /** Upstream's accuracy, the mean over sample indices when K > 1. */
  accuracy: number;
  correct: number;
  total: number;
  processAccuracy?: number;
}

/** Scores: per category, then the normal and special group means (null without categories). */
export function aceNsScores(
  items: readonly ItemResult[],
  entries: Map<NsCategory, NsEntry[]>,
): { categories: AceNsCategoryScore[]; normal: number | null; special: number | null } {
  const byId = new Map(items.map((i) => [i.id, i]));
  const samples = Math.max(1, ...items.map((i) => i.samples.length));
  const categories: AceNsCategoryScore[] = [];
  for (const [category, list] of entries) {
    if (list.length === 0) continue;
    const perSample = Array.from({ length: samples }, (_, k) =>
      scoreVerdicts(
        list,
        list.map((e) => ({
          id: e.id,
          valid: byId.get(e.id)?.samples.find((s) => s.sample === k)?.success ?? false,
          errorType: "",
          error: "",
        })),
      ),
    );
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const process = perSample
      .map((s) => s.processAccuracy)
      .filter((x): x is number => x !== undefined);
    categories.push({
      category,
      accuracy: mean(perSample.map((s) => s.accuracy)),
      correct: perSample.reduce((a, s) => a + s.correct, 0),
      total: perSample.reduce((a, s) => a + s.total, 0),
      ...(process.length > 0 ? { processAccuracy: mean(process) } : {}),
    });
  }
  return {
    categories,
    normal: groupMean(
      categories.filter((c) => c.category.startsWith("normal")).map((c) => c.accuracy),
    ),
    special: groupMean(
      categories.filter((c) => c.category.startsWith("special")).map((c) => c.accuracy),
    ),
  };
}
