/**
 * @module eval/run/bfcl
 * BFCL v4 multi-turn for the evaluation runner: entries as tasks, the agent shown what
 * upstream's FC mode shows (no system prompt; at a miss_func holdout turn the new functions as
 * tools and only the fixed sentence as the user message), and the leaderboard's aggregation.
 */
import type { JsonObject } from "../../env/index.js";
import type { Agent, Episode } from "../../rollout/index.js";
import {
  ADDED_FUNCTIONS_PROMPT,
  BFCL_CATEGORIES,
  bfclEnv,
  loadEntries,
  loadFunctionDocs,
  loadLongContextData,
  type BfclCategory,
  type BfclEntry,
  type BfclSessionOptions,
} from "../bfcl/index.js";
import type { GroupSummary } from "./summary.js";
import type { EvalTask } from "./types.js";

/** A BFCL entry as an evaluation task (group = its category). */
export interface BfclTask extends EvalTask {
  entry: BfclEntry;
  group: BfclCategory;
}

/** Options of `bfclTasks`. */
export interface BfclTaskOptions {
  /** Only the first N entries of each category. Default all 200. */
  limit?: number;
  /** Session options (clock); long-context data is loaded from `dataDir` unless given. */
  session?: BfclSessionOptions;
}

/** The entries of `categories` (in that order) as tasks; each task opens a fresh `BfclEnv`. */
export function bfclTasks(
  dataDir: string,
  categories: readonly BfclCategory[],
  options: BfclTaskOptions = {},
): BfclTask[] {
  const docs = loadFunctionDocs(dataDir);
  const session: BfclSessionOptions = {
    loadLongContext: () => loadLongContextData(dataDir),
    ...options.session,
  };
  return categories.flatMap((category) => {
    const entries = loadEntries(dataDir, category);
    return (options.limit === undefined ? entries : entries.slice(0, options.limit)).map(
      (entry) => ({
        id: entry.id,
        group: category,
        entry,
        open: () => bfclEnv({ entry, docs, session }),
      }),
    );
  });
}

/**
 * The observation as upstream's FC mode words it: a holdout turn's text (the new documents,
 * then the sentence) becomes the sentence alone, since the documents reach the model as tools
 * (the chat agent offers the environment's `currentTools()`).
 */
export function fcObservation(observation: string): string {
  return observation.endsWith(`\n${ADDED_FUNCTIONS_PROMPT}`) && observation.startsWith("[")
    ? ADDED_FUNCTIONS_PROMPT
    : observation;
}

/** Wraps an agent so it sees observations in FC form; the environment (and its tools) pass through. */
export function fcAgent(agent: Agent): Agent {
  const wrapped: Agent = (turn) => agent({ ...turn, observation: fcObservation(turn.observation) });
  if (agent.trace) wrapped.trace = agent.trace;
  return wrapped;
}

/** The checker's verdict from an episode's last step (recorded per sample). */
export function bfclMetrics(episode: Episode): JsonObject {
  const info = episode.steps.at(-1)?.info ?? {};
  const out: JsonObject = { valid: episode.success };
  for (const key of ["errorType", "errorMessage", "failedTurn"])
    if (info[key] !== undefined) out[key] = info[key]!;
  return out;
}

/** The leaderboard's multi-turn numbers. */
export interface BfclLeaderboard {
  /** Accuracy per category; null for a category not evaluated (the leaderboard shows N/A). */
  categories: Record<BfclCategory, number | null>;
  /**
   * Unweighted mean of the four category accuracies (upstream `calculate_unweighted_accuracy`),
   * a missing category counting 0; null (N/A) unless all four were evaluated.
   */
  overall: number | null;
}

/** The leaderboard's aggregation of per-category summaries. */
export function bfclLeaderboard(groups: readonly GroupSummary[]): BfclLeaderboard {
  const categories = Object.fromEntries(
    BFCL_CATEGORIES.map((c) => [
      c,
      groups.find((g) => g.group === c && g.items > 0)?.accuracy ?? null,
    ]),
  ) as Record<BfclCategory, number | null>;
  const values = BFCL_CATEGORIES.map((c) => categories[c]);
  const overall = values.every((v) => v !== null)
    ? values.reduce<number>((s, v) => s + (v ?? 0), 0) / values.length
    : null;
  return { categories, overall };
}
