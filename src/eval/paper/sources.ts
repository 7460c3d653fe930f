/**
 * @module eval/paper/sources
 * Where a table column's number comes from: a `ColumnSource` runs one suite (resumable, in its
 * own results folder) and fills its columns. Sources for suites that SPADE does not run yet
 * fill "not supported yet"; suites without local data fill "not available". A new suite is one
 * more source in the setting's list.
 */
import { join } from "node:path";
import { describeError, isSpadeError } from "../../errors.js";
import type { JsonObject } from "../../env/index.js";
import type { Agent } from "../../rollout/index.js";
import { aceMetrics, aceScores, aceSetName, aceTasks, type AceTask } from "../run/acebench.js";
import { runEval, type EvalAgentContext, type EvalProgress } from "../run/runner.js";
import type { EvalTask } from "../run/types.js";
import {
  loadHardSplit,
  RG_CATEGORIES,
  rgResults,
  rgSettingsRecord,
  rgTasks,
  type RgCategory,
  type RgService,
} from "../rg/index.js";
import type { UserSimulator } from "../acebench/index.js";
import { tau2PassAt1, TAU2_DOMAINS } from "../tau2/index.js";
import { QaEnv, type QaItem } from "./qa.js";
import type { Cell } from "./table.js";

/** What every source is given. */
export interface SourceContext {
  /** The benchmarks folder. */
  dataDir: string;
  /** This source's results folder (item files, run.json). */
  outDir: string;
  /** The model's name (recorded in run.json). */
  model: string;
  resume: boolean;
  concurrency: number;
  signal: AbortSignal;
  /** Progress after each item. */
  onProgress?: (source: string, progress: EvalProgress) => void;
}

/** What a source produced. */
export interface SourceResult {
  cells: Record<string, Cell>;
  /** The settings used, as the reference names them. */
  settings: JsonObject;
  /** Per-item or per-dataset results and the folder holding them. */
  details: JsonObject;
  /** True when cancelled before every item finished (its cells are then left out). */
  interrupted: boolean;
}

/** One source of columns. */
export interface ColumnSource {
  name: string;
  columns: readonly string[];
  run(context: SourceContext): Promise<SourceResult>;
}

function fill(columns: readonly string[], cell: Cell): Record<string, Cell> {
  return Object.fromEntries(columns.map((c) => [c, cell]));
}

/** Columns that all show `status` and `reason`, without running anything. */
function placeholderSource(
  name: string,
  columns: readonly string[],
  status: "not supported yet" | "not available",
  reason: string,
): ColumnSource {
  return {
    name,
    columns,
    run: async () => ({
      cells: fill(columns, { status, reason }),
      settings: {},
      details: {},
      interrupted: false,
    }),
  };
}

/** Columns whose suite SPADE does not run yet. */
export function unsupportedSource(
  name: string,
  columns: readonly string[],
  reason: string,
): ColumnSource {
  return placeholderSource(name, columns, "not supported yet", reason);
}

/** Columns whose data is not here. */
export function unavailableSource(
  name: string,
  columns: readonly string[],
  reason: string,
): ColumnSource {
  return placeholderSource(name, columns, "not available", reason);
}

/** Runs a source; an error becomes "failed" cells with its reason (E_CANCELLED: interrupted). */
export async function runSource(
  source: ColumnSource,
  context: SourceContext,
): Promise<SourceResult> {
  try {
    return await source.run(context);
  } catch (err) {
    if (isSpadeError(err, "E_CANCELLED"))
      return { cells: {}, settings: {}, details: {}, interrupted: true };
    // Missing data files are "not available", anything else is a failure of this suite only.
    const status = isSpadeError(err, "E_IO") ? "not available" : "failed";
    return {
      cells: fill(source.columns, { status, reason: describeError(err) }),
      settings: {},
      details: {},
      interrupted: false,
    };
  }
}

async function runTasks<T extends EvalTask>(
  name: string,
  context: SourceContext,
  tasks: T[],
  options: {
    samples: number;
    settings: JsonObject;
    makeAgent: (c: EvalAgentContext<T>) => Agent;
    metrics?: Parameters<typeof runEval<T>>[0]["metrics"];
  },
) {
  return runEval({
    tasks,
    info: {
      benchmark: name,
      model: context.model,
      samples: options.samples,
      settings: options.settings,
    },
    concurrency: context.concurrency,
    outDir: context.outDir,
    resume: context.resume,
    signal: context.signal,
    makeAgent: options.makeAgent,
    metrics: options.metrics,
    onItem: (_item, p) => context.onProgress?.(name, p),
  });
}

const RG_COLUMN: Record<RgCategory, string> = {
  math: "RG:Math",
  algorithmic: "RG:Algorithmic",
  cognition: "RG:Cognition",
  logic: "RG:Logic",
};

/** The four RG columns from the hard split (agents made by `makeAgent` with the reference's sampling). */
export function rgSource(options: {
  service: RgService;
  makeAgent: (sample: number, signal: AbortSignal) => Agent;
  datasets?: readonly string[];
  limit?: number;
}): ColumnSource {
  const columns = RG_CATEGORIES.map((c) => RG_COLUMN[c]);
  return {
    name: "rg",
    columns,
    async run(context) {
      const datasets = await loadHardSplit(context.dataDir, {
        datasets: options.datasets,
        limit: options.limit,
      });
      const settings = rgSettingsRecord();
      const run = await runTasks("rg", context, rgTasks(datasets, options.service), {
        samples: 8,
        settings,
        makeAgent: ({ sample, signal }) => options.makeAgent(sample, signal),
      });
      const { datasets: perDataset, columns: byCategory } = rgResults(run.items, datasets);
      const cells: Record<string, Cell> = {};
      for (const c of RG_CATEGORIES) {
        const v = byCategory[c];
        if (!datasets.some((d) => d.category === c))
          cells[RG_COLUMN[c]] = {
            status: "not available",
            reason: "no dataset of this column was selected",
          };
        else
          cells[RG_COLUMN[c]] =
            v === null
              ? { status: "failed", reason: "no episode of this column finished" }
              : { status: "ok", value: v };
      }
      return {
        cells: run.interrupted ? {} : cells,
        settings,
        details: { out: context.outDir, datasets: perDataset } as unknown as JsonObject,
        interrupted: run.interrupted,
      };
    },
  };
}

/**
 * ACEBench-A: the English agent entries (multi-turn with a simulated user, multi-step), the
 * unweighted mean of the two sets' end-to-end accuracies, as upstream's agent summary.
 */
export function aceAgentSource(options: {
  acebenchDir: string;
  limit?: number;
  makeAgent: (sample: number, signal: AbortSignal) => Agent;
  userFor: (entry: AceTask["entry"]) => UserSimulator;
  settings: JsonObject;
}): ColumnSource {
  return {
    name: "acebench-agent",
    columns: ["ACEBench-A"],
    async run(context) {
      const sets = [
        { lang: "en" as const, category: "multi_turn" as const },
        { lang: "en" as const, category: "multi_step" as const },
      ];
      const tasks = aceTasks(options.acebenchDir, sets, {
        userFor: options.userFor,
        limit: options.limit,
      });
      const run = await runTasks("acebench-agent", context, tasks, {
        samples: 1,
        settings: options.settings,
        makeAgent: ({ sample, signal }) => options.makeAgent(sample, signal),
        metrics: ({ task, env, episode }) => aceMetrics(task.entry, env, episode),
      });
      const scores = aceScores(
        run.items,
        sets.map((s) => aceSetName(s.lang, s.category)),
      );
      const summary = scores.languages.find((l) => l.lang === "en")?.agentSummary ?? null;
      const cell: Cell =
        summary === null
          ? { status: "failed", reason: "no complete set" }
          : { status: "ok", value: summary };
      const cells: Record<string, Cell> = run.interrupted ? {} : { "ACEBench-A": cell };
      return {
        cells,
        settings: options.settings,
        details: { out: context.outDir, ...(scores as unknown as JsonObject) },
        interrupted: run.interrupted,
      };
    },
  };
}

/** The results folder of a source below the paper run's folder. */
export function sourceDir(outDir: string, source: ColumnSource): string {
  return join(outDir, source.name);
}

/** A question as an evaluation task. */
interface QaTask extends EvalTask {
  item: QaItem;
}

/**
 * One column from a file of questions (AIME of one year, GPQA-Diamond): K samples per question,
 * the column is correct samples / samples (the reference's pass@1 / avg@N). A missing file gives
 * "not available" naming where to put it.
 */
export function qaSource(options: {
  name: string;
  column: string;
  load: (dataDir: string) => Promise<QaItem[]>;
  samples: number;
  /** What results.json records; a function is read once the items are loaded. */
  settings: JsonObject | (() => JsonObject);
  limit?: number;
  makeAgent: (sample: number, signal: AbortSignal, system: string | null) => Agent;
}): ColumnSource {
  return {
    name: options.name,
    columns: [options.column],
    async run(context) {
      const items = await options.load(context.dataDir);
      const chosen = options.limit === undefined ? items : items.slice(0, options.limit);
      const settings =
        typeof options.settings === "function" ? options.settings() : options.settings;
      const tasks: QaTask[] = chosen.map((item) => ({
        id: item.id,
        group: options.name,
        item,
        open: () => new QaEnv(item),
      }));
      const run = await runTasks(options.name, context, tasks, {
        samples: options.samples,
        settings,
        makeAgent: ({ task, sample, signal }) =>
          options.makeAgent(sample, signal, task.item.system),
      });
      const samples = run.items.flatMap((i) => i.samples);
      const correct = samples.filter((s) => s.success).length;
      const cells: Record<string, Cell> =
        run.interrupted || samples.length === 0
          ? {}
          : { [options.column]: { status: "ok", value: correct / samples.length } };
      const perItem = run.items.map((i) => ({
        id: i.id,
        accuracy: i.accuracy,
        anyCorrect: i.samples.some((s) => s.success),
      }));
      const passAtK =
        perItem.length === 0 ? null : perItem.filter((p) => p.anyCorrect).length / perItem.length;
      return {
        cells,
        settings,
        details: {
          out: context.outDir,
          samples: samples.length,
          correct,
          passAtK,
          items: perItem,
        } as unknown as JsonObject,
        interrupted: run.interrupted,
      };
    },
  };
}

/** The tau2 columns, in the order of the table. */
export const TAU2_COLUMNS = ["Tau2-Retail", "Tau2-Airline", "Tau2-Telecom"] as const;

/**
 * The three tau2 columns from a finished `spade eval tau2 --domain all` results folder: pass^1
 * per domain as tau2 computes it (`tau2PassAt1`). The harness runs for hours against a real
 * model with a simulated user, so the table reads its results rather than starting it; without
 * a folder the columns say how to make one, and a domain missing from it says so.
 */
export function tau2ResultsSource(resultsDir: string | undefined): ColumnSource {
  const how =
    "run `spade eval tau2 --domain all --out DIR` with the same model, then pass --tau2-results DIR";
  if (resultsDir === undefined) return unavailableSource("tau2", TAU2_COLUMNS, how);
  return {
    name: "tau2",
    columns: TAU2_COLUMNS,
    async run() {
      const scores = await tau2PassAt1(resultsDir);
      const cells: Record<string, Cell> = {};
      TAU2_DOMAINS.forEach((domain, i) => {
        const score = scores[domain];
        cells[TAU2_COLUMNS[i] as string] = score
          ? { status: "ok", value: score.passAt1 }
          : { status: "not available", reason: `no ${domain} results in ${resultsDir}: ${how}` };
      });
      return {
        cells,
        settings: {
          source: "spade eval tau2 (tau2-bench's own harness)",
          results: resultsDir,
          column: "pass^1 per domain",
        },
        details: { out: resultsDir, ...(scores as unknown as JsonObject) },
        interrupted: false,
      };
    },
  };
}
