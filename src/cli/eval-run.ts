/**
 * @module cli/eval-run
 * What `spade eval SUITE|bfcl|acebench --policy ...` share: the run flags, the output folder,
 * Ctrl-C handling (finished items are kept; `--resume` continues), progress on stderr, the
 * summary table on stdout and `summary.json`. Exit 0 when the run completed, 130 when interrupted,
 * 3 when every sample failed (nothing could be played: e.g. the model server never answered).
 */
import { join } from "node:path";
import { withInterrupt } from "./interrupt.js";
import type { OutageBreaker } from "../policy/index.js";
import { SpadeError } from "../errors.js";
import type { JsonObject } from "../env/index.js";
import type { Agent, Episode } from "../rollout/index.js";
import type { Env } from "../env/index.js";
import {
  formatRate,
  runEval,
  summarize,
  summaryTable,
  writeJsonAtomic,
  type EvalAgentContext,
  type EvalTask,
  type GroupSummary,
  type ItemResult,
} from "../eval/run/index.js";
import {
  EXIT_NOTHING_PLAYED,
  intFlag,
  jsonArg,
  nothingPlayedLine,
  printJson,
  dataArg,
} from "./common.js";
import { POLICY_NAMES, policyArgs, type Policy, type PolicyFlags } from "./policy.js";
import { itemProgress } from "./progress.js";

/** Flags of every model evaluation command. */
export const evalRunArgs = {
  ...policyArgs,
  policy: {
    type: "string",
    description: `who plays: ${POLICY_NAMES.join(" | ")} (oracle and random are baselines without a model)`,
    required: true,
  },
  limit: {
    type: "string",
    description: "only the first N items (BFCL, ACEBench: of each category)",
  },
  samples: {
    type: "string",
    description: "samples per item, K (accuracy is pass@1 averaged over them)",
    default: "1",
  },
  concurrency: { type: "string", description: "episodes in flight at once", default: "8" },
  out: { type: "string", description: "results folder (default eval-results/<benchmark>/<model>)" },
  resume: {
    type: "boolean",
    description:
      "skip items whose results file exists in --out (an item a sample of which the model server failed is played again)",
    default: false,
  },
  json: jsonArg,
  data: dataArg(),
} as const;

/** Parsed values of `evalRunArgs`. */
export interface EvalRunFlags extends PolicyFlags {
  limit?: string;
  samples?: string;
  concurrency?: string;
  out?: string;
  resume?: boolean;
  json?: boolean;
  data?: string;
}

/** `--limit` as a number, or undefined. */
export function limitFlag(flags: EvalRunFlags): number | undefined {
  return flags.limit === undefined ? undefined : intFlag("limit", flags.limit, 1);
}

/**
 * Runs an eval command's `body` under its Ctrl-C handler (cli/interrupt.ts): the first Ctrl-C
 * aborts the signal, so running episodes stop and finished items are kept. So does the policy's
 * outage breaker when it trips; the command then fails with its E_POLICY_UNAVAILABLE.
 */
export function withEvalInterrupt<T>(
  body: (signal: AbortSignal) => Promise<T>,
  outage: OutageBreaker | null = null,
): Promise<T> {
  return withInterrupt(
    "spade: stopping: running episodes end at their next turn; finished items are kept (continue with --resume)",
    async (interrupt) => {
      const signal = outage ? AbortSignal.any([interrupt, outage.signal]) : interrupt;
      let result: T;
      try {
        result = await body(signal);
      } catch (err) {
        throw outage?.error ?? err;
      }
      if (outage?.error) throw outage.error;
      return result;
    },
  );
}

/** What a benchmark adds to the summary: JSON fields and lines of text. */
export interface SummaryExtras {
  json: JsonObject;
  lines: string[];
}

/** The summary extras of a benchmark's scores: the scores as its JSON fields, and their lines. */
export function scoreExtras<S extends object>(
  scores: S,
  lines: (scores: S) => string[],
): SummaryExtras {
  return { json: scores as unknown as JsonObject, lines: lines(scores) };
}

/** One evaluation command's run. */
export interface EvalCommandSpec<T extends EvalTask> {
  benchmark: string;
  flags: EvalRunFlags;
  policy: Policy;
  tasks: T[];
  /** The run's cancellation signal (see `withEvalInterrupt`). */
  signal: AbortSignal;
  /** Summary rows in this order. */
  groupOrder?: readonly string[];
  /** Default: the policy's agent with its default system prompt. */
  makeAgent?: (context: EvalAgentContext<T>) => Agent;
  metrics?: (context: { task: T; env: Env; episode: Episode }) => JsonObject;
  /** Recorded in run.json. */
  settings?: JsonObject;
  /** Benchmark-specific numbers (leaderboard aggregation...). */
  extras?: (items: ItemResult[], groups: GroupSummary[]) => SummaryExtras;
}

/** The default results folder. */
export function defaultOutDir(benchmark: string, model: string): string {
  return join("eval-results", benchmark, model.replace(/[^A-Za-z0-9._-]/g, "_"));
}

/** Runs the evaluation, prints progress, the summary, and writes `summary.json`. */
export async function runEvalCommand<T extends EvalTask>(spec: EvalCommandSpec<T>): Promise<void> {
  const { flags, policy, benchmark } = spec;
  const samples = intFlag("samples", flags.samples ?? "1", 1, 1_000);
  const concurrency = intFlag("concurrency", flags.concurrency ?? "8", 1, 1_024);
  const outDir = flags.out ?? defaultOutDir(benchmark, policy.model);
  if (spec.tasks.length === 0) throw new SpadeError("E_CONFIG", `no ${benchmark} items selected`);
  const progress = itemProgress(process.stderr);
  const run = await runEval({
    tasks: spec.tasks,
    info: {
      benchmark,
      model: policy.model,
      samples,
      settings: { policy: policy.name, ...spec.settings },
    },
    concurrency,
    outDir,
    resume: flags.resume === true,
    signal: spec.signal,
    metrics: spec.metrics,
    makeAgent:
      spec.makeAgent ?? (({ sample, signal }) => policy.makeAgent({ seed: sample, signal })),
    onItem: (_item, p) =>
      progress.item(
        `[${benchmark}] ${p.itemsDone}/${p.itemsTotal} items, accuracy ${formatRate(p.accuracy)}, failed samples ${p.failedSamples}`,
        p.itemsDone,
        p.itemsTotal,
      ),
  }).finally(() => progress.clear()); // a run cut short leaves no live line behind
  const { groups, overall } = summarize(run.items, spec.groupOrder);
  const extras = spec.extras?.(run.items, groups) ?? { json: {}, lines: [] };
  const nothingPlayed = overall.samples > 0 && overall.failedSamples === overall.samples;
  const summary = {
    benchmark,
    model: policy.model,
    policy: policy.name,
    samples,
    items: run.items.length,
    total: run.total,
    resumed: run.resumed,
    interrupted: run.interrupted,
    accuracy: overall.accuracy,
    failedSamples: overall.failedSamples,
    nothingPlayed,
    groups,
    overall,
    ...extras.json,
    out: outDir,
  };
  await writeJsonAtomic(join(outDir, "summary.json"), summary);
  if (flags.json) printJson(summary);
  else {
    process.stdout.write(
      `${benchmark}: ${policy.model}, ${run.items.length}/${run.total} items x ${samples} sample(s)${run.resumed > 0 ? ` (${run.resumed} resumed)` : ""}\n`,
    );
    process.stdout.write(`${summaryTable(groups, overall)}\n`);
    for (const line of extras.lines) process.stdout.write(`${line}\n`);
    process.stdout.write(`failed samples count as wrong; results in ${outDir}\n`);
    if (nothingPlayed) {
      const first =
        run.items.flatMap((i) => i.samples).find((s) => s.failure !== null)?.failure ?? null;
      process.stdout.write(`${nothingPlayedLine("sample", overall.samples, first)}\n`);
    }
  }
  // Stopped by the outage breaker: withEvalInterrupt fails the command with its error.
  if (policy.outage?.error) return;
  if (run.interrupted) {
    process.stderr.write(
      `spade: interrupted after ${run.items.length}/${run.total} items; rerun with --resume --out ${outDir}\n`,
    );
    process.exitCode = 130;
  } else if (nothingPlayed) process.exitCode = EXIT_NOTHING_PLAYED;
}
