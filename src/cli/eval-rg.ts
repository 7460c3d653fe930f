/**
 * @module cli/eval-rg
 * `spade eval rg --policy ...` (the paper's four RG columns from the reasoning-gym hard split) and
 * `spade eval gold rg` (every dataset's reference answers win, perturbed ones do not).
 */
import { defineCommand } from "citty";
import type { JsonObject } from "../env/index.js";
import {
  RG_CATEGORIES,
  RG_GROUP_ORDER,
  RG_SAMPLING,
  RgWorkerPool,
  loadHardSplit,
  rgGoldCheck,
  rgResults,
  rgSettingsRecord,
  rgTasks,
  type RgGoldReport,
} from "../eval/rg/index.js";
import { formatRate } from "../eval/run/index.js";
import { dataRoot } from "../eval/index.js";
import { intFlag, printJson } from "./common.js";
import { evalRunArgs, withEvalInterrupt, limitFlag, runEvalCommand } from "./eval-run.js";
import { policyFromFlags } from "./policy.js";

/** Flags of both RG commands beyond the shared ones. */
export const rgArgs = {
  datasets: {
    type: "string",
    description: "only these reasoning-gym datasets, comma-separated (default all 100)",
  },
  workers: {
    type: "string",
    description: "reasoning-gym worker processes (default 4)",
    default: "4",
  },
  python: {
    type: "string",
    description: "Python with reasoning-gym installed (default the project's .venv, else python3)",
  },
} as const;

/** Parsed `rgArgs`. */
export interface RgFlags {
  datasets?: string;
  workers?: string;
  python?: string;
}

/** The worker pool of the flags. */
export function rgPool(flags: RgFlags): RgWorkerPool {
  return new RgWorkerPool(
    intFlag("workers", flags.workers ?? "4", 1),
    flags.python ? { python: flags.python } : {},
  );
}

/** `--datasets` as a list. */
export function datasetsFlag(flags: RgFlags): string[] | undefined {
  return flags.datasets
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Runs the gold check and prints it; the process exit code says whether it held. */
export async function runRgGold(
  flags: RgFlags & { limit?: string; data?: string; json?: boolean; perturb?: boolean },
): Promise<RgGoldReport> {
  const dataDir = dataRoot({ flag: flags.data, env: process.env });
  const limit = flags.limit === undefined ? undefined : intFlag("limit", flags.limit, 1);
  const datasets = await loadHardSplit(dataDir, { datasets: datasetsFlag(flags), limit });
  const pool = rgPool(flags);
  try {
    const versions = await pool.hello();
    if (!flags.json)
      process.stderr.write(
        `reasoning-gym ${versions.reasoningGym} (Python ${versions.python}), ${datasets.length} datasets x 8 episodes\n`,
      );
    const report = await rgGoldCheck(datasets, pool, {
      perturb: flags.perturb !== false,
      concurrency: 2 * intFlag("workers", flags.workers ?? "4", 1),
      onDataset: (r, done, total) => {
        const p = r.perturbations.map((k) => `${k.kind} ${k.rejected}/${k.applicable}`).join(", ");
        process.stderr.write(
          `[rg gold] ${done}/${total} ${r.dataset}: ${r.correct}/${r.episodes} (perturbed rejected: ${p})\n`,
        );
      },
    });
    const accepted = report.datasets.flatMap((d) =>
      d.perturbations.flatMap((k) =>
        k.accepted.map((a) => ({ dataset: d.dataset, kind: k.kind, ...a })),
      ),
    );
    const perturbations = Object.fromEntries(
      ["empty", "other-problem", "changed-character"].map((kind) => {
        const slots = report.datasets.flatMap((d) =>
          d.perturbations.filter((k) => k.kind === kind),
        );
        return [
          kind,
          {
            applicable: slots.reduce((n, k) => n + k.applicable, 0),
            rejected: slots.reduce((n, k) => n + k.rejected, 0),
          },
        ];
      }),
    );
    if (flags.json) {
      printJson({
        suite: report.suite,
        items: report.items,
        correct: report.correct,
        problems: report.problems,
        problemsCorrect: report.problemsCorrect,
        reasoningGym: versions.reasoningGym,
        perturbations,
        accepted,
        failures: report.datasets.flatMap((d) =>
          d.failures.map((f) => ({ dataset: d.dataset, ...f })),
        ),
      } as unknown as JsonObject);
    } else {
      process.stdout.write(
        `rg: ${report.correct}/${report.items} datasets with every reference correct; ${report.problemsCorrect}/${report.problems} problems (${(report.durationMs / 1000).toFixed(1)} s)\n`,
      );
      for (const [kind, p] of Object.entries(perturbations))
        process.stdout.write(
          `  perturbation ${kind}: ${p.rejected}/${p.applicable} scored below 1\n`,
        );
      for (const d of report.datasets)
        for (const f of d.failures)
          process.stderr.write(`  FAIL ${d.dataset} episode ${f.episode}: ${f.reason}\n`);
      for (const a of accepted.slice(0, 20))
        process.stderr.write(
          `  ACCEPTED ${a.dataset} episode ${a.episode} ${a.kind}: ${JSON.stringify(a.answer)}\n`,
        );
    }
    process.exitCode = report.correct === report.items ? 0 : 1;
    return report;
  } finally {
    await pool.close();
  }
}

/** `spade eval rg --policy ...` */
export const rgRunCommand = defineCommand({
  meta: {
    name: "rg",
    description:
      "Evaluate a policy on the reasoning-gym hard split (100 datasets x 8 episodes, the reference's settings): the RG:Math/Algorithmic/Cognition/Logic columns",
  },
  args: {
    ...evalRunArgs,
    samples: {
      type: "string",
      description: "episodes per dataset (the reference: 8)",
      default: "8",
    },
    ...rgArgs,
  },
  async run({ args }) {
    const policy = policyFromFlags(args);
    const dataDir = dataRoot({ flag: args.data, env: process.env });
    const datasets = await loadHardSplit(dataDir, {
      datasets: datasetsFlag(args),
      limit: limitFlag(args),
    });
    const pool = rgPool(args);
    try {
      await withEvalInterrupt(async (signal) => {
        await pool.hello();
        await runEvalCommand({
          benchmark: "rg",
          flags: { ...args, samples: args.samples ?? "8" },
          policy,
          tasks: rgTasks(datasets, pool),
          signal,
          groupOrder: RG_GROUP_ORDER,
          makeAgent: ({ sample, signal }) =>
            policy.makeAgent({ seed: sample, signal, systemPrompt: null, sampling: RG_SAMPLING }),
          settings: rgSettingsRecord(),
          extras: (items) => {
            const { datasets: perDataset, columns } = rgResults(items, datasets);
            return {
              json: { columns, datasets: perDataset } as unknown as JsonObject,
              lines: RG_CATEGORIES.map(
                (c) =>
                  `RG:${c[0]?.toUpperCase()}${c.slice(1)}: ${columns[c] === null ? "-" : formatRate(columns[c])}`,
              ),
            };
          },
        });
      }, policy.outage);
    } finally {
      await pool.close();
    }
  },
});
