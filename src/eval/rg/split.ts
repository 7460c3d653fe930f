/**
 * @module eval/rg/split
 * The reasoning-gym hard split as the SPADE reference evaluates it: 100 datasets with their hard
 * configurations and four-way rollup (read from `reasoning-gym/hard.json` in the benchmarks
 * folder), and the reference's per-dataset settings (eval_offline/configs/_games_gem.yaml).
 */
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import type { JsonObject } from "../../env/index.js";
import { readJson } from "../data.js";

/** The four RG columns of the paper's games table, in its order. */
export const RG_CATEGORIES = ["math", "algorithmic", "cognition", "logic"] as const;

/** One RG column. */
export type RgCategory = (typeof RG_CATEGORIES)[number];

/** One dataset of the split. */
export interface RgDataset {
  /** reasoning-gym's dataset name, e.g. `basic_arithmetic`. */
  name: string;
  /** Keyword arguments of its hard configuration. */
  config: JsonObject;
  category: RgCategory;
}

/**
 * Per-dataset settings of the reference (eval_offline/configs/_games_gem.yaml and
 * spade/core/eval/gem_evaluator.py): 8 episodes (episode e draws its problem with seed e), up
 * to 2 turns, temperature 0.6, top_p 0.8, top_k 20, min_p 0, at most 8,192 new tokens within a
 * 32,768-token context; a win is a final reward of 1.
 */
export const RG_SETTINGS = Object.freeze({
  episodes: 8,
  maxTurns: 2,
  temperature: 0.6,
  topP: 0.8,
  topK: 20,
  minP: 0,
  presencePenalty: 0,
  maxTokens: 8192,
  maxContextTokens: 32768,
  datasetSize: 500,
  datasetSeed: 42,
});

/** The split's file below the benchmarks folder. */
export const RG_HARD_FILE = join("reasoning-gym", "hard.json");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses `hard.json`'s content; E_IO naming the file for a malformed one. */
export function parseHardSplit(doc: unknown, path: string): RgDataset[] {
  const bad = (what: string) =>
    new SpadeError("E_IO", `${path}: ${what}`, {
      nextStep: "restore the file from ../shared/benchmarks (see its README)",
    });
  if (!isRecord(doc) || !isRecord(doc.hard_configs) || !isRecord(doc.category_of))
    throw bad("expected the objects hard_configs and category_of");
  const categories = doc.category_of;
  return Object.entries(doc.hard_configs).map(([name, config]) => {
    if (!isRecord(config)) throw bad(`hard_configs.${name} is not an object`);
    const category = categories[name];
    if (!(RG_CATEGORIES as readonly unknown[]).includes(category))
      throw bad(`category_of.${name} is not one of ${RG_CATEGORIES.join(", ")}`);
    return { name, config: config as JsonObject, category: category as RgCategory };
  });
}

/** Options of `loadHardSplit`. */
export interface LoadHardSplitOptions {
  /** Only these datasets (E_CONFIG for an unknown one). Default all 100. */
  datasets?: readonly string[];
  /** Only the first N datasets (file order). */
  limit?: number;
}

/** The hard split's datasets from the benchmarks folder `dataDir`. */
export async function loadHardSplit(
  dataDir: string,
  options: LoadHardSplitOptions = {},
): Promise<RgDataset[]> {
  const path = join(dataDir, RG_HARD_FILE);
  let datasets = parseHardSplit(await readJson(path), path);
  if (options.datasets) {
    const known = new Set(datasets.map((d) => d.name));
    const unknown = options.datasets.filter((d) => !known.has(d));
    if (unknown.length > 0)
      throw new SpadeError("E_CONFIG", `unknown reasoning-gym dataset(s): ${unknown.join(", ")}`, {
        nextStep: `see ${path} for the 100 names`,
      });
    const wanted = new Set(options.datasets);
    datasets = datasets.filter((d) => wanted.has(d.name));
  }
  return options.limit === undefined ? datasets : datasets.slice(0, options.limit);
}

/**
 * The reference's prompt around a reasoning-gym question (gem_evaluator.py `_build_initial_prompt`
 * for the `rg` category: the reasoning-gym paper's default system prompt, sent as the one user message).
 */
export function rgPrompt(question: string): string {
  return (
    "Given a problem, your task is to answer the question by thinking step-by-step in a clear and specific manner.\n" +
    `Problem: ${question}\n` +
    "Once you have thought about the reasoning process, provide the answer in the following format:\n" +
    "<answer>answer here</answer>\n" +
    "Do not explain your reasoning inside the answer tags, provide only the final answer. " +
    "When an example is provided, you should strictly follow the format of the output/answer in that example."
  );
}

/** Win rate of each column: wins / episodes over its datasets, as the reference rolls up (no episodes: null). */
export function rollup(
  results: ReadonlyArray<{ category: RgCategory; wins: number; episodes: number }>,
): Record<RgCategory, number | null> {
  const out = {} as Record<RgCategory, number | null>;
  for (const c of RG_CATEGORIES) {
    const mine = results.filter((r) => r.category === c);
    const episodes = mine.reduce((n, r) => n + r.episodes, 0);
    out[c] = episodes === 0 ? null : mine.reduce((n, r) => n + r.wins, 0) / episodes;
  }
  return out;
}
