/**
 * @module cli/eval-paper
 * `spade eval paper --setting games|tool-use --policy ...`: every column of the paper's table
 * that SPADE can compute, against one model, into `table.md`, `table.csv` and `results.json`;
 * `--compare DIR...` puts finished runs side by side with the difference to the first.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import {
  isPaperSetting,
  PAPER_SETTINGS,
  readPaperRow,
  renderCsv,
  renderMarkdown,
  runPaper,
  type ColumnSource,
  type PaperSetting,
} from "../eval/paper/index.js";
import { RgWorkerPool } from "../eval/rg/index.js";
import { dataRoot } from "../eval/index.js";
import { LCB_DEFAULT_RELEASE, LCB_RELEASES, PythonSandbox } from "../eval/suites/code/index.js";
import { codeSandboxOptions, intFlag, cgroupsArg } from "./common.js";
import { gamesSources } from "./eval-paper-games.js";
import { toolUseSources } from "./eval-paper-tool-use.js";
import { defaultOutDir, evalRunArgs, withEvalInterrupt } from "./eval-run.js";
import { policyFromFlags, type Policy } from "./policy.js";
import { itemProgress, progressBar } from "./progress.js";

/** A source's progress: its bar, items done and the accuracy so far. */
function sourceProgress(source: string, done: number, total: number, accuracy: number): string {
  return `[${source}] ${progressBar(done, total)} ${done}/${total} items, accuracy ${(100 * accuracy).toFixed(1)}%`;
}

/** The sources of a setting, in column order. */
function sourcesFor(
  setting: PaperSetting,
  policy: Policy,
  flags: Record<string, unknown>,
  dataDir: string,
  pool: () => RgWorkerPool,
  sandbox: () => Promise<PythonSandbox>,
): ColumnSource[] {
  const limit = flags.limit === undefined ? undefined : intFlag("limit", String(flags.limit), 1);
  return setting === "games"
    ? gamesSources(policy, flags, limit, pool, sandbox)
    : toolUseSources(policy, flags, dataDir, limit);
}

/** `spade eval paper ...` */
export const paperCommand = defineCommand({
  meta: {
    name: "paper",
    description:
      "The paper's table (--setting games | tool-use) for one model, or --compare finished runs side by side",
  },
  args: {
    ...evalRunArgs,
    policy: {
      type: "string",
      description: "who plays (see spade eval gsm8k --help); not needed with --compare",
    },
    setting: { type: "string", description: `${PAPER_SETTINGS.join(" | ")}` },
    compare: {
      type: "string",
      description:
        "folders of finished `spade eval paper` runs, comma-separated: a table of them side by side (the first is the baseline)",
    },
    datasets: {
      type: "string",
      description: "games: only these reasoning-gym datasets, comma-separated (default all 100)",
    },
    workers: {
      type: "string",
      description: "games: reasoning-gym worker processes (default 4)",
      default: "4",
    },
    python: {
      type: "string",
      description: "games: Python with reasoning-gym (default the project's .venv, else python3)",
    },
    "lcb-release": {
      type: "string",
      description: `games: LiveCodeBench release tag (default ${LCB_DEFAULT_RELEASE}; one of ${Object.keys(LCB_RELEASES).join(", ")})`,
    },
    "allow-no-isolation": {
      type: "boolean",
      description:
        "games: run LiveCodeBench checks without namespaces (no network cut) when they are unavailable",
    },
    cgroups: cgroupsArg,
    "bfcl-single-data": {
      type: "string",
      description:
        "tool-use: folder holding bfcl_eval/data with BFCL's single-turn categories (default: the bfcl folder of the benchmarks; the bfcl-eval==2026.3.23 wheel's site-packages folder has them)",
    },
    "tau2-results": {
      type: "string",
      description:
        "tool-use: the folder of a finished `spade eval tau2 --domain all` run of the same model (its pass^1 fills the Tau2 columns)",
    },
    "user-model": {
      type: "string",
      description:
        "tool-use: model that plays ACEBench's simulated user (default --model; the reference used gpt-4o)",
    },
    "user-base-url": {
      type: "string",
      description: "tool-use: server of the user model (default --base-url)",
    },
    "user-api-key-env": {
      type: "string",
      description: "tool-use: variable holding the user server's key",
    },
  },
  async run({ args }) {
    if (args.compare !== undefined) {
      const dirs = args.compare
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      if (dirs.length < 1) throw new SpadeError("E_CONFIG", "--compare needs at least one folder");
      const rows = await Promise.all(dirs.map(readPaperRow));
      const md = renderMarkdown(rows);
      if (args.out) {
        await writeFile(join(args.out, "table.md"), md);
        await writeFile(join(args.out, "table.csv"), renderCsv(rows));
      }
      process.stdout.write(md);
      return;
    }
    const setting = String(args.setting ?? "");
    if (!isPaperSetting(setting))
      throw new SpadeError(
        "E_CONFIG",
        `--setting must be one of ${PAPER_SETTINGS.join(", ")} (got ${JSON.stringify(args.setting ?? null)})`,
      );
    if (!args.policy)
      throw new SpadeError("E_CONFIG", "eval paper needs --policy (or --compare DIR,...)", {
        nextStep: "add --policy openai --base-url URL --model NAME",
      });
    const policy = policyFromFlags(args);
    const dataDir = dataRoot({ flag: args.data, env: process.env });
    const outDir = args.out ?? defaultOutDir(`paper-${setting}`, policy.model);
    let pool: RgWorkerPool | null = null;
    const getPool = () =>
      (pool ??= new RgWorkerPool(
        intFlag("workers", args.workers ?? "4", 1),
        args.python ? { python: args.python } : {},
      ));
    let sandbox: Promise<PythonSandbox> | null = null;
    const getSandbox = () =>
      (sandbox ??= PythonSandbox.create(
        // --python here names reasoning-gym's interpreter, not the sandbox's.
        codeSandboxOptions({ ...args, python: undefined }),
      ));
    let progress = itemProgress(process.stderr);
    try {
      const run = await withEvalInterrupt(
        (signal) =>
          runPaper({
            setting,
            model: policy.model,
            sources: sourcesFor(setting, policy, args, dataDir, getPool, getSandbox),
            outDir,
            context: {
              dataDir,
              model: policy.model,
              resume: args.resume === true,
              concurrency: intFlag("concurrency", args.concurrency ?? "8", 1),
              signal,
              onProgress: (source, p) =>
                progress.item(
                  sourceProgress(source, p.itemsDone, p.itemsTotal, p.accuracy),
                  p.itemsDone,
                  p.itemsTotal,
                ),
            },
            onSource: (source, phase) => {
              progress.clear(); // a source cut short leaves no live line behind
              if (phase === "end") return;
              progress = itemProgress(process.stderr);
              process.stderr.write(`[${source.name}] ${source.columns.join(", ")}\n`);
            },
          }),
        policy.outage,
      );
      process.stdout.write(renderMarkdown([run.row]));
      for (const [column, cell] of Object.entries(run.row.cells)) {
        if (cell.status !== "ok")
          process.stdout.write(`  ${column}: ${cell.status}: ${cell.reason}\n`);
      }
      process.stdout.write(
        `results in ${outDir} (table.md, table.csv, results.json with the settings used and per-item results)\n`,
      );
      if (run.interrupted) {
        process.stderr.write(
          `spade: interrupted; finished items are kept: rerun with --resume --out ${outDir}\n`,
        );
        process.exitCode = 130;
      }
    } finally {
      progress.clear();
      if (pool) await (pool as RgWorkerPool).close();
    }
  },
});
