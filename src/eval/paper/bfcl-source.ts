/**
 * @module eval/paper/bfcl-source
 * The BFCL-v4 column: the categories the reference runs (non_live, live, multi_turn), one sample
 * each at temperature 0, scored by the leaderboard's "Overall Acc".
 */
import type { JsonObject } from "../../env/index.js";
import type { Agent } from "../../rollout/index.js";
import { BFCL_CATEGORIES, BFCL_LIVE, BFCL_NON_LIVE } from "../bfcl/index.js";
import { bfclMetrics, bfclTasks, fcAgent } from "../run/bfcl.js";
import { bfclOverall, bfclSingleTasks } from "../run/bfcl-overall.js";
import { runEval } from "../run/runner.js";
import { summarize } from "../run/summary.js";
import type { EvalTask } from "../run/types.js";
import type { ColumnSource } from "./sources.js";
import type { Cell } from "./table.js";

/** Options of `bfclSource`. */
export interface BfclSourceOptions {
  /** The multi-turn data folder (holding bfcl_eval/data and long_context_data.json). */
  multiTurnDir: string;
  /** The folder holding bfcl_eval/data with the single-turn categories (the bfcl-eval wheel's). */
  singleTurnRoot: string;
  makeAgent: (sample: number, signal: AbortSignal) => Agent;
  settings: JsonObject;
  limit?: number;
}

/** The BFCL-v4 column from one run over every single-turn and multi-turn category. */
export function bfclSource(options: BfclSourceOptions): ColumnSource {
  return {
    name: "bfcl",
    columns: ["BFCL-v4"],
    async run(context) {
      const tasks: EvalTask[] = [
        ...bfclSingleTasks(options.singleTurnRoot, [...BFCL_NON_LIVE, ...BFCL_LIVE], options.limit),
        ...bfclTasks(options.multiTurnDir, BFCL_CATEGORIES, { limit: options.limit }),
      ];
      const run = await runEval({
        tasks,
        info: { benchmark: "bfcl", model: context.model, samples: 1, settings: options.settings },
        concurrency: context.concurrency,
        outDir: context.outDir,
        resume: context.resume,
        signal: context.signal,
        makeAgent: ({ sample, signal }) => fcAgent(options.makeAgent(sample, signal)),
        metrics: ({ episode }) => bfclMetrics(episode),
        onItem: (_item, p) => context.onProgress?.("bfcl", p),
      });
      const overall = bfclOverall(summarize(run.items).groups);
      const cells: Record<string, Cell> = run.interrupted
        ? {}
        : { "BFCL-v4": { status: "ok", value: overall.overall.accuracy } };
      return {
        cells,
        settings: options.settings,
        details: { out: context.outDir, ...(overall as unknown as JsonObject) },
        interrupted: run.interrupted,
      };
    },
  };
}
