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
import { chatUserSimulator } from "../eval/run/index.js";
import {
  aceAgentSource,
  bfclSource,
  isPaperSetting,
  lcbItems,
  LCB_SETTINGS,
  loadAime,
  loadGpqa,
  qaPaths,
  qaSource,
  PAPER_SETTINGS,
  readPaperRow,
  renderCsv,
  renderMarkdown,
  rgSource,
  runPaper,
  tau2ResultsSource,
  unavailableSource,
  type ColumnSource,
  type PaperSetting,
} from "../eval/paper/index.js";
import {
  aceNormalSpecialSource,
  aceOverallSource,
  recordingSource,
  type CellStore,
} from "../eval/paper/acebench-source.js";
import { resolveBfclDataDir } from "../eval/bfcl/index.js";
import { RG_SAMPLING, RgWorkerPool } from "../eval/rg/index.js";
import { dataRoot } from "../eval/index.js";
import {
  LCB_DEFAULT_RELEASE,
  LCB_RELEASES,
  LCB_TIMEOUT_SECONDS,
  loadLiveCodeBench,
  PythonSandbox,
} from "../eval/suites/code/index.js";
import type { SamplingParams } from "../policy/index.js";
import { intFlag } from "./common.js";
import { acebenchFolder } from "./eval-acebench.js";
import { bfclSingleRoot } from "./eval-run-bfcl.js";
import { defaultOutDir, evalRunArgs, withEvalInterrupt } from "./eval-run.js";
import { datasetsFlag } from "./eval-rg.js";
import { openAIBackendFrom, policyFromFlags, type Policy } from "./policy.js";

/**
 * ACEBench settings of the reference (eval_offline/configs/tool_use.yaml): temperature 0.7,
 * top_p 1.0, 16,384 tokens, at most 40 dialogue turns, the user played by a second model.
 */
const ACEBENCH_SAMPLING: SamplingParams = { temperature: 0.7, top_p: 1, max_tokens: 16384 };

/** AIME (eval_offline/configs/games.yaml): 64 samples, temperature 1.0, top_p 0.95, top_k 20, 32,768 tokens. */
const AIME_SAMPLING: SamplingParams = {
  temperature: 1,
  top_p: 0.95,
  max_tokens: 32768,
  ...({ top_k: 20 } as object),
};

/** GPQA-Diamond (games.yaml): 8 samples, temperature 0.7, top_p 0.95, 32,768 tokens. */
const GPQA_SAMPLING: SamplingParams = { temperature: 0.7, top_p: 0.95, max_tokens: 32768 };

/** LiveCodeBench (games.yaml): 1 sample, temperature 0.2, top_p 0.95, 16,384 tokens. */
const LCB_SAMPLING: SamplingParams = {
  temperature: LCB_SETTINGS.temperature,
  top_p: LCB_SETTINGS.top_p,
  max_tokens: LCB_SETTINGS.max_tokens,
};

/** BFCL (tool_use.yaml bfcl_full): temperature 0.0, one sample per entry. */
const BFCL_SAMPLING: SamplingParams = { temperature: 0 };

/** A one-line progress bar on stderr. */
function bar(source: string, done: number, total: number, accuracy: number): string {
  const width = 24;
  const filled = total === 0 ? width : Math.round((width * done) / total);
  return `[${source}] ${"#".repeat(filled)}${"-".repeat(width - filled)} ${done}/${total} items, accuracy ${(100 * accuracy).toFixed(1)}%`;
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
  const lcbRelease = (flags["lcb-release"] as string | undefined) ?? LCB_DEFAULT_RELEASE;
  const agent = (sampling: SamplingParams) => (sample: number, signal: AbortSignal) =>
    policy.makeAgent({ seed: sample, signal, systemPrompt: null, sampling });
  const qaAgent =
    (sampling: SamplingParams) => (sample: number, signal: AbortSignal, system: string | null) =>
      policy.makeAgent({ seed: sample, signal, systemPrompt: system, sampling });
  const limit = flags.limit === undefined ? undefined : intFlag("limit", String(flags.limit), 1);
  if (setting === "games") {
    return [
      ...[2025, 2026].map((year) =>
        qaSource({
          name: `aime-${year}`,
          column: `AIME-${year - 2000}`,
          load: (dir) => loadAime(qaPaths(dir).aime(year), year),
          samples: 64,
          settings: {
            source: "spade-rl/spade eval_offline/configs/games.yaml (aime)",
            samples: 64,
            temperature: 1,
            top_p: 0.95,
            top_k: 20,
            max_tokens: 32768,
            grading: "last \\boxed{} (no nested braces), math equivalence with the label",
            column: "pass@1 over all samples",
          },
          limit,
          makeAgent: qaAgent(AIME_SAMPLING),
        }),
      ),
      qaSource({
        name: "gpqa-diamond",
        column: "GPQA-Diamond",
        load: (dir) => loadGpqa(qaPaths(dir).gpqa),
        samples: 8,
        settings: {
          source: "spade-rl/spade eval_offline/configs/games.yaml (gpqa_diamond)",
          samples: 8,
          temperature: 0.7,
          top_p: 0.95,
          max_tokens: 32768,
          grading: "last \\boxed{A-D}, else the first 'answer is X' / 'Answer: X'",
          column: "avg@8",
        },
        limit,
        makeAgent: qaAgent(GPQA_SAMPLING),
      }),
      qaSource({
        name: "livecodebench",
        column: "LiveCodeBench",
        load: async (dir) =>
          lcbItems(
            await loadLiveCodeBench(qaPaths(dir).livecodebench, lcbRelease),
            await sandbox(),
          ),
        samples: LCB_SETTINGS.samples,
        settings: {
          source: "spade-rl/spade eval_offline/configs/games.yaml (livecodebench)",
          release: lcbRelease,
          ...LCB_SETTINGS,
          timeoutSecondsPerTest: LCB_TIMEOUT_SECONDS,
          grading:
            "last ```python block (else the whole answer), every public and private test passes under lcb_runner's rules",
          column: "pass@1 averaged over samples",
        },
        limit,
        makeAgent: qaAgent(LCB_SAMPLING),
      }),
      rgSource({
        service: pool(),
        makeAgent: agent(RG_SAMPLING),
        datasets: datasetsFlag(flags as { datasets?: string }),
        limit: flags.limit === undefined ? undefined : intFlag("limit", String(flags.limit), 1),
      }),
    ];
  }
  const userModel =
    (flags["user-model"] as string | undefined) ??
    (policy.name === "openai" ? (flags.model as string | undefined) : undefined);
  const userBaseURL =
    (flags["user-base-url"] as string | undefined) ??
    (policy.name === "openai" ? (flags["base-url"] as string | undefined) : undefined);
  const userApiKeyEnv =
    (flags["user-api-key-env"] as string | undefined) ??
    (flags["user-base-url"] === undefined
      ? (flags["api-key-env"] as string | undefined)
      : undefined);
  const aceCells: CellStore = new Map();
  const ace: ColumnSource =
    userModel && userBaseURL
      ? (() => {
          const userBackend = openAIBackendFrom({
            baseURL: userBaseURL,
            model: userModel,
            apiKeyEnv: userApiKeyEnv,
          });
          return aceAgentSource({
            acebenchDir: acebenchFolder(dataDir),
            limit: flags.limit === undefined ? undefined : intFlag("limit", String(flags.limit), 1),
            makeAgent: agent(ACEBENCH_SAMPLING),
            userFor: (entry) => chatUserSimulator(userBackend, entry),
            settings: {
              source: "spade-rl/spade eval_offline/configs/tool_use.yaml",
              language: "en",
              limit: (flags.limit as string | undefined) ?? null,
              temperature: 0.7,
              top_p: 1,
              max_tokens: 16384,
              userModel,
              referenceUserModel: "gpt-4o",
            },
          });
        })()
      : unavailableSource(
          "acebench-agent",
          ["ACEBench-A"],
          "multi-turn entries need a simulated user: pass --user-model and --user-base-url (or use --policy openai)",
        );
  return [
    bfclSource({
      multiTurnDir: resolveBfclDataDir({ flag: dataDir, env: {}, cwd: process.cwd() }),
      singleTurnRoot: bfclSingleRoot(flags["bfcl-single-data"] as string | undefined, dataDir),
      makeAgent: agent(BFCL_SAMPLING),
      limit,
      settings: {
        source: "spade-rl/spade eval_offline/configs/tool_use.yaml",
        categories: ["non_live", "live", "multi_turn"],
        samples: 1,
        temperature: 0,
        limit: limit ?? null,
      },
    }),
    tau2ResultsSource(flags["tau2-results"] as string | undefined),
    aceNormalSpecialSource({
      acebenchDir: acebenchFolder(dataDir),
      limit,
      makeAgent: qaAgent(ACEBENCH_SAMPLING),
      store: aceCells,
      settings: {
        source: "spade-rl/spade eval_offline/configs/tool_use.yaml",
        language: "en",
        categories: "12 normal + 3 special, one sample each",
        limit: limit ?? null,
        temperature: 0.7,
        top_p: 1,
        max_tokens: 16384,
        column: "mean of the categories' accuracies (upstream's eval_main.py per category)",
      },
    }),
    recordingSource(ace, aceCells),
    aceOverallSource(aceCells),
  ];
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
      (sandbox ??= PythonSandbox.create({ allowNoIsolation: args["allow-no-isolation"] === true }));
    let lastPrintMs = 0;
    try {
      const run = await withEvalInterrupt((signal) =>
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
            onProgress: (source, p) => {
              const now = Date.now();
              if (now - lastPrintMs < 1000 && p.itemsDone < p.itemsTotal) return;
              lastPrintMs = now;
              process.stderr.write(`${bar(source, p.itemsDone, p.itemsTotal, p.accuracy)}\n`);
            },
          },
          onSource: (source, phase) => {
            if (phase === "start")
              process.stderr.write(`[${source.name}] ${source.columns.join(", ")}\n`);
          },
        }),
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
      if (pool) await (pool as RgWorkerPool).close();
    }
  },
});
