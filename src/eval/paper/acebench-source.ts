/**
 * @module eval/paper/acebench-source
 * The ACEBench-N, ACEBench-S and ACEBench (overall) columns: every English normal and special
 * entry played once, each category scored as upstream scores it, groups and overall as the SPADE
 * reference's suite combines them (plain means, 0.578 N + 0.2676 S + 0.1545 A, unrounded).
 */
import type { JsonObject } from "../../env/index.js";
import type { Agent } from "../../rollout/index.js";
import {
  NORMAL_CATEGORIES,
  SPECIAL_CATEGORIES,
  nsSystemPrompt,
  overallScore,
  type NsCategory,
} from "../acebench/index.js";
import { aceNsEntries, aceNsScores, aceNsTasks } from "../run/acebench-ns.js";
import { runEval } from "../run/runner.js";
import type { ColumnSource, SourceResult } from "./sources.js";
import type { Cell } from "./table.js";

/** Where column values are shared between sources of one table (ACEBench-A feeds the overall). */
export type CellStore = Map<string, Cell>;

/** Wraps a source so that its cells are also kept in `store`. */
export function recordingSource(source: ColumnSource, store: CellStore): ColumnSource {
  return {
    ...source,
    async run(context) {
      const result = await source.run(context);
      for (const [k, v] of Object.entries(result.cells)) store.set(k, v);
      return result;
    },
  };
}

/** ACEBench-N and ACEBench-S: the 15 English categories, one sample per entry (`limit`: per category). */
export function aceNormalSpecialSource(options: {
  acebenchDir: string;
  limit?: number;
  makeAgent: (sample: number, signal: AbortSignal, system: string) => Agent;
  settings: JsonObject;
  store?: CellStore;
}): ColumnSource {
  const categories: NsCategory[] = [...NORMAL_CATEGORIES, ...SPECIAL_CATEGORIES];
  return {
    name: "acebench-normal-special",
    columns: ["ACEBench-N", "ACEBench-S"],
    async run(context) {
      const entries = aceNsEntries(options.acebenchDir, categories, options.limit);
      const run = await runEval({
        tasks: aceNsTasks(entries),
        info: {
          benchmark: "acebench-normal-special",
          model: context.model,
          samples: 1,
          settings: options.settings,
        },
        concurrency: context.concurrency,
        outDir: context.outDir,
        resume: context.resume,
        signal: context.signal,
        makeAgent: ({ task, sample, signal }) =>
          options.makeAgent(sample, signal, nsSystemPrompt(task.entry)),
        onItem: (_item, p) => context.onProgress?.("acebench-normal-special", p),
      });
      if (run.interrupted)
        return {
          cells: {},
          settings: options.settings,
          details: { out: context.outDir },
          interrupted: true,
        };
      const scores = aceNsScores(run.items, entries);
      const cells: Record<string, Cell> = {
        "ACEBench-N":
          scores.normal === null
            ? { status: "failed", reason: "no normal entries" }
            : { status: "ok", value: scores.normal },
        "ACEBench-S":
          scores.special === null
            ? { status: "failed", reason: "no special entries" }
            : { status: "ok", value: scores.special },
      };
      for (const [k, v] of Object.entries(cells)) options.store?.set(k, v);
      return {
        cells,
        settings: options.settings,
        details: { out: context.outDir, categories: scores.categories } as unknown as JsonObject,
        interrupted: false,
      };
    },
  };
}

/** The ACEBench overall column from the N, S and A cells the other sources stored. */
export function aceOverallSource(store: CellStore): ColumnSource {
  return {
    name: "acebench-overall",
    columns: ["ACEBench"],
    async run(): Promise<SourceResult> {
      const parts = ["ACEBench-N", "ACEBench-S", "ACEBench-A"].map(
        (c) => [c, store.get(c)] as const,
      );
      const missing = parts.filter(([, cell]) => cell?.status !== "ok").map(([c]) => c);
      const settings = {
        weights: { normal: 0.578, special: 0.2676, agent: 0.1545 },
        source:
          "ACEBench eval_main.py generate_result_csv; unrounded as spade-rl/spade eval_offline/suites/acebench.py",
      } as JsonObject;
      if (missing.length > 0)
        return {
          cells: { ACEBench: { status: "not available", reason: `needs ${missing.join(", ")}` } },
          settings,
          details: {},
          interrupted: false,
        };
      const [n, s, a] = parts.map(([, cell]) => (cell as { value: number }).value) as [
        number,
        number,
        number,
      ];
      return {
        cells: { ACEBench: { status: "ok", value: overallScore(n, s, a, { round: false }) } },
        settings,
        details: { normal: n, special: s, agent: a },
        interrupted: false,
      };
    },
  };
}
