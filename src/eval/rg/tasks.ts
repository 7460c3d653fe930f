/**
 * @module eval/rg/tasks
 * The hard split for the evaluation runner: one task per dataset whose K = 8 samples are the
 * reference's 8 episodes (sample e plays the problem of seed e), grouped by RG column; the
 * sampling each request carries; and the four columns rolled up from the item results.
 */
import type { JsonObject } from "../../env/index.js";
import type { SamplingParams } from "../../policy/index.js";
import type { EvalTask, ItemResult } from "../run/types.js";
import { RgEnv } from "./env.js";
import { RG_CATEGORIES, RG_SETTINGS, rollup, type RgCategory, type RgDataset } from "./split.js";
import type { RgService } from "./worker.js";

/** A dataset as an evaluation task; `group` is `rg/<category>`. */
export interface RgTask extends EvalTask {
  dataset: RgDataset;
}

/** The summary group of a column. */
export function rgGroup(category: RgCategory): string {
  return `rg/${category}`;
}

/** Summary rows in the paper's column order. */
export const RG_GROUP_ORDER: readonly string[] = RG_CATEGORIES.map(rgGroup);

/** Datasets as tasks served by `service`. */
export function rgTasks(datasets: readonly RgDataset[], service: RgService): RgTask[] {
  return datasets.map((dataset) => ({
    id: `rg/${dataset.name}`,
    group: rgGroup(dataset.category),
    dataset,
    open: () => new RgEnv(dataset, service),
  }));
}

/**
 * The reference's request sampling (gem_evaluator.py): temperature 0.6, top_p 0.8, top_k 20,
 * min_p 0, presence_penalty 0, 8,192 new tokens. `top_k` and `min_p` are vLLM / SGLang extras
 * that the OpenAI-compatible client passes through in the request body.
 */
export const RG_SAMPLING: SamplingParams = {
  temperature: RG_SETTINGS.temperature,
  top_p: RG_SETTINGS.topP,
  max_tokens: RG_SETTINGS.maxTokens,
  ...({
    top_k: RG_SETTINGS.topK,
    min_p: RG_SETTINGS.minP,
    presence_penalty: RG_SETTINGS.presencePenalty,
  } as object),
};

/** The settings recorded with every RG result. */
export function rgSettingsRecord(): JsonObject {
  return {
    source: "spade-rl/spade eval_offline/configs/_games_gem.yaml, spade/core/eval/gem_evaluator.py",
    ...RG_SETTINGS,
    prompt: "reasoning-gym default prompt with <answer> tags, one user message, no system message",
    extraction: "last <answer>...</answer>, else last \\boxed{}",
    win: "score_answer >= 1 - 1e-9",
    column:
      "wins / episodes played over the column's datasets (failed episodes left out, as the reference)",
  };
}

/** One dataset's result as the reference reports it. */
export interface RgDatasetResult {
  dataset: string;
  category: RgCategory;
  /** Episodes played without a failure (server error...). */
  episodes: number;
  wins: number;
  /** Failed episodes (not counted, as the reference counts errors apart). */
  errors: number;
  winRate: number | null;
  /** Mean `score_answer` value over the played episodes. */
  meanScore: number | null;
}

/** Per-dataset results and the four columns, from the runner's item results. */
export function rgResults(
  items: readonly ItemResult[],
  datasets: readonly RgDataset[],
): { datasets: RgDatasetResult[]; columns: Record<RgCategory, number | null> } {
  const byId = new Map(items.map((i) => [i.id, i]));
  const results = datasets.flatMap((d) => {
    const item = byId.get(`rg/${d.name}`);
    if (!item) return [];
    const played = item.samples.filter((s) => s.failure === null);
    const scores = played.map((s) => {
      const steps = (s.transcript as { steps?: Array<{ info?: { score?: unknown } }> }).steps ?? [];
      const score = steps[steps.length - 1]?.info?.score;
      return typeof score === "number" ? score : 0;
    });
    const wins = played.filter((s) => s.success).length;
    return [
      {
        dataset: d.name,
        category: d.category,
        episodes: played.length,
        wins,
        errors: item.samples.length - played.length,
        winRate: played.length === 0 ? null : wins / played.length,
        meanScore: played.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / played.length,
      },
    ];
  });
  return { datasets: results, columns: rollup(results) };
}
