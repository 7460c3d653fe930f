/**
 * @module eval/run/bfcl-overall
 * BFCL v4 single-turn entries as evaluation tasks, and the leaderboard's overall accuracy
 * (bfcl-eval 2026.3.23 `eval_runner_helper.py`) over the categories the reference runs.
 */
import {
  BFCL_CATEGORIES,
  BFCL_LIVE,
  BFCL_NON_LIVE,
  BfclSingleEnv,
  loadSingleEntries,
  type BfclSingleCategory,
  type BfclSingleEntry,
} from "../bfcl/index.js";
import type { GroupSummary } from "./summary.js";
import type { EvalTask } from "./types.js";

/** A single-turn entry as an evaluation task (group = its category). */
export interface BfclSingleTask extends EvalTask {
  entry: BfclSingleEntry;
  group: BfclSingleCategory;
}

/** The entries of `categories` as tasks, the first `limit` of each when given. */
export function bfclSingleTasks(
  root: string,
  categories: readonly BfclSingleCategory[],
  limit?: number,
): BfclSingleTask[] {
  return categories.flatMap((category) => {
    const entries = loadSingleEntries(root, category);
    return (limit === undefined ? entries : entries.slice(0, limit)).map((entry) => ({
      id: entry.id,
      group: category,
      entry,
      open: () => new BfclSingleEnv(entry),
    }));
  });
}

/**
 * Entries per category in bfcl-eval 2026.3.23: upstream counts a category that was not run as
 * 0% over this many entries (`get_category_score`).
 */
export const BFCL_CATEGORY_SIZES: Readonly<Record<string, number>> = {
  simple_python: 400,
  simple_java: 100,
  simple_javascript: 50,
  multiple: 200,
  parallel: 200,
  parallel_multiple: 200,
  irrelevance: 240,
  live_simple: 258,
  live_multiple: 1053,
  live_parallel: 16,
  live_parallel_multiple: 24,
  live_irrelevance: 884,
  live_relevance: 16,
  base: 200,
  miss_func: 200,
  miss_param: 200,
  long_context: 200,
};

/** One leaderboard cell: accuracy (0..1) and the entries behind it; `na` when a part was not run. */
export interface BfclScore {
  accuracy: number;
  count: number;
  na: boolean;
}

function unweighted(parts: BfclScore[]): BfclScore {
  return {
    accuracy: parts.reduce((s, p) => s + p.accuracy, 0) / parts.length,
    count: parts.reduce((s, p) => s + p.count, 0),
    na: parts.some((p) => p.na),
  };
}

function weighted(parts: BfclScore[]): BfclScore {
  const count = parts.reduce((s, p) => s + p.count, 0);
  return {
    accuracy: parts.reduce((s, p) => s + p.accuracy * p.count, 0) / count,
    count,
    na: parts.some((p) => p.na),
  };
}

/** The leaderboard's summary columns. */
export interface BfclOverall {
  /** Per category (single-turn and multi-turn), as evaluated; missing ones are 0 and `na`. */
  categories: Record<string, BfclScore>;
  nonLive: BfclScore;
  live: BfclScore;
  irrelevance: BfclScore;
  multiTurn: BfclScore;
  /** Web search and memory: never run by the reference (0, `na`). */
  agentic: BfclScore;
  /**
   * "Overall Acc": 10% non-live, 10% live, 10% irrelevance, 30% multi-turn, 40% agentic, each
   * missing part counting 0 (so it is at most 60% without the agentic categories, as the
   * reference reports it).
   */
  overall: BfclScore;
}

/** The leaderboard's aggregation of per-category summaries (groups named by category). */
export function bfclOverall(groups: readonly GroupSummary[]): BfclOverall {
  const score = (category: string): BfclScore => {
    const g = groups.find((x) => x.group === category && x.items > 0);
    return g
      ? { accuracy: g.accuracy, count: g.items, na: false }
      : { accuracy: 0, count: BFCL_CATEGORY_SIZES[category] ?? 0, na: true };
  };
  const categories = Object.fromEntries(
    [...BFCL_NON_LIVE, ...BFCL_LIVE, ...BFCL_CATEGORIES].map((c) => [c, score(c)]),
  );
  const simple = unweighted([
    score("simple_python"),
    score("simple_java"),
    score("simple_javascript"),
  ]);
  const nonLive = unweighted([
    simple,
    score("multiple"),
    score("parallel"),
    score("parallel_multiple"),
  ]);
  const live = weighted([
    score("live_simple"),
    score("live_multiple"),
    score("live_parallel"),
    score("live_parallel_multiple"),
  ]);
  const irrelevance = unweighted([score("irrelevance"), score("live_irrelevance")]);
  const multiTurn = unweighted(BFCL_CATEGORIES.map(score));
  const agentic: BfclScore = { accuracy: 0, count: 0, na: true };
  const parts = [nonLive, live, irrelevance, multiTurn, agentic];
  const weights = [10, 10, 10, 30, 40];
  const overall: BfclScore = {
    accuracy: parts.reduce((s, p, i) => s + (p.accuracy * weights[i]!) / 100, 0),
    count: parts.reduce((s, p) => s + p.count, 0),
    na: parts.slice(0, 4).some((p) => p.na),
  };
  return { categories, nonLive, live, irrelevance, multiTurn, agentic, overall };
}
