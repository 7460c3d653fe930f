/**
 * @module eval/paper/acebench-source
 * The ACEBench-N, ACEBench-S and ACEBench (overall) columns: every English normal and special
 * entry played once, each category scored as upstream scores it, groups and overall as the SPADE
 * reference's suite combines them (plain means, 0.578 N + 0.2676 S + 0.1545 A, unrounded).
 */
import type { JsonObject } from "../../env/index.js";
import type { Agent } from "../../rollout/index.js";
import { AceNsEnv, NORMAL_CATEGORIES, SPECIAL_CATEGORIES, groupMean, loadNsEntries, nsSystemPrompt, overallScore, scoreVerdicts, type NsCategory, type NsEntry } from "../acebench/index.js";
import { runEval } from "../run/runner.js";
import type { EvalTask } from "../run/types.js";
import type { ColumnSource, SourceResult } from "./sources.js";
import type { Cell } from "./table.js";

/** An entry as an evaluation task. */
interface NsTask extends EvalTask {
  entry: NsEntry;
}

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
export function aceNormalSpecialSource(options: { acebenchDir: string; limit?: number; makeAgent: (sample: number, signal: AbortSignal, system: string) => Agent; settings: JsonObject; store?: CellStore }): ColumnSource {
  const categories: NsCategory[] = [...NORMAL_CATEGORIES, ...SPECIAL_CATEGORIES];
  return {
    name: "acebench-normal-special",
    columns: ["ACEBench-N", "ACEBench-S"],
    async run(context) {
      const byCategory = new Map(categories.map((c) => {
        const all = loadNsEntries(options.acebenchDir, c);
        return [c, options.limit === undefined ? all : all.slice(0, options.limit)] as const;
      }));
      const tasks: NsTask[] = [...byCategory.values()].flat().map((entry) => ({ id: entry.id, group: entry.category, entry, open: () => new AceNsEnv(entry) }));
      const run = await runEval({
        tasks,
        info: { benchmark: "acebench-normal-special", model: context.model, samples: 1, settings: options.settings },
        concurrency: context.concurrency,
        outDir: context.outDir,
        resume: context.resume,
        signal: context.signal,
        makeAgent: ({ task, sample, signal }) => options.makeAgent(sample, signal, nsSystemPrompt(task.entry)),
        onItem: (_item, p) => context.onProgress?.("acebench-normal-special", p),
      });
      if (run.interrupted) return { cells: {}, settings: options.settings, details: { out: context.outDir }, interrupted: true };
      const valid = new Map(run.items.map((i) => [i.id, i.samples.some((s) => s.success)]));
      const scores = categories.map((c) => {
        const entries = byCategory.get(c)!;
        return scoreVerdicts(entries, entries.map((e) => ({ id: e.id, valid: valid.get(e.id) ?? false, errorType: "", error: "" })));
      });
      const n = groupMean(scores.filter((s) => s.category.startsWith("normal")).map((s) => s.accuracy));
      const s = groupMean(scores.filter((x) => x.category.startsWith("special")).map((x) => x.accuracy));
      const cells: Record<string, Cell> = {
        "ACEBench-N": n === null ? { status: "failed", reason: "no normal entries" } : { status: "ok", value: n },
        "ACEBench-S": s === null ? { status: "failed", reason: "no special entries" } : { status: "ok", value: s },
      };
      for (const [k, v] of Object.entries(cells)) options.store?.set(k, v);
      const categoriesOut = scores.map((x) => ({ category: x.category, accuracy: x.accuracy, correct: x.correct, total: x.total, ...(x.processAccuracy === undefined ? {} : { processAccuracy: x.processAccuracy }) }));
      return { cells, settings: options.settings, details: { out: context.outDir, categories: categoriesOut } as unknown as JsonObject, interrupted: false };
    },
  };
}

/** The ACEBench overall column from the N, S and A cells the other sources stored. */
export function aceOverallSource(store: CellStore): ColumnSource {
  return {
    name: "acebench-overall",
    columns: ["ACEBench"],
    async run(): Promise<SourceResult> {
      const parts = ["ACEBench-N", "ACEBench-S", "ACEBench-A"].map((c) => [c, store.get(c)] as const);
      const missing = parts.filter(([, cell]) => cell?.status !== "ok").map(([c]) => c);
      const settings = { weights: { normal: 0.578, special: 0.2676, agent: 0.1545 }, source: "ACEBench eval_main.py generate_result_csv; unrounded as spade-rl/spade eval_offline/suites/acebench.py" } as JsonObject;
      if (missing.length > 0) return { cells: { ACEBench: { status: "not available", reason: `needs ${missing.join(", ")}` } }, settings, details: {}, interrupted: false };
      const [n, s, a] = parts.map(([, cell]) => (cell as { value: number }).value) as [number, number, number];
      return { cells: { ACEBench: { status: "ok", value: overallScore(n, s, a, { round: false }) } }, settings, details: { normal: n, special: s, agent: a }, interrupted: false };
    },
  };
}
