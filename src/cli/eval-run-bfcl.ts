/**
 * @module cli/eval-run-bfcl
 * `spade eval bfcl --policy ... [--category all|overall|non_live|live|multi_turn|C,...]`: a model
 * plays BFCL v4 entries with native tool calls, as upstream's FC mode runs them; accuracy per
 * category, the multi-turn overall, and with single-turn categories the leaderboard's overall.
 */
import { resolve } from "node:path";
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import type { JsonObject } from "../env/index.js";
import {
  BFCL_CATEGORIES,
  BFCL_LIVE,
  BFCL_NON_LIVE,
  resolveBfclDataDir,
  type BfclCategory,
  type BfclSingleCategory,
} from "../eval/bfcl/index.js";
import {
  bfclLeaderboard,
  bfclMetrics,
  bfclOverall,
  bfclSingleTasks,
  bfclTasks,
  fcAgent,
  formatRate,
  type EvalTask,
} from "../eval/run/index.js";
import { evalRunArgs, withEvalInterrupt, limitFlag, runEvalCommand } from "./eval-run.js";
import { policyFromFlags } from "./policy.js";
import { dataArg } from "./common.js";

const SINGLE: readonly string[] = [...BFCL_NON_LIVE, ...BFCL_LIVE];
const GROUPS: Record<string, readonly string[]> = {
  all: BFCL_CATEGORIES,
  multi_turn: BFCL_CATEGORIES,
  non_live: BFCL_NON_LIVE,
  live: BFCL_LIVE,
  overall: [...BFCL_NON_LIVE, ...BFCL_LIVE, ...BFCL_CATEGORIES],
};

/**
 * `--category` with single-turn categories too: comma-separated categories or groups (`non_live`,
 * `live`, `multi_turn`, `overall` = the three the reference runs; `all` stays the multi-turn four).
 */
export function bfclSelectionFlag(value: string | undefined): {
  multi: BfclCategory[];
  single: BfclSingleCategory[];
} {
  const names = new Set<string>();
  for (const part of (value ?? "all")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")) {
    const group = Object.hasOwn(GROUPS, part) ? GROUPS[part]! : [part];
    for (const name of group) {
      if (!SINGLE.includes(name) && !(BFCL_CATEGORIES as readonly string[]).includes(name)) {
        throw new SpadeError("E_CONFIG", `unknown --category "${part}"`, {
          nextStep: `categories ${[...SINGLE, ...BFCL_CATEGORIES].join(", ")} or groups ${Object.keys(GROUPS).join(", ")}, comma-separated`,
        });
      }
      names.add(name);
    }
  }
  return {
    multi: BFCL_CATEGORIES.filter((c) => names.has(c)),
    single: SINGLE.filter((c) => names.has(c)) as BfclSingleCategory[],
  };
}

/** The folder holding bfcl_eval/data with the single-turn files: the flag, else the BFCL data folder. */
export function bfclSingleRoot(flag: string | undefined, bfclDir: string): string {
  return flag
    ? resolve(process.cwd(), flag)
    : resolveBfclDataDir({ flag: bfclDir, env: {}, cwd: process.cwd() });
}

/** `spade eval bfcl --policy ...`. */
export const bfclRunCommand = defineCommand({
  meta: {
    name: "bfcl",
    description:
      "Evaluate a policy on BFCL v4 multi-turn with native tool calls: accuracy per category and the leaderboard's overall",
  },
  args: {
    ...evalRunArgs,
    category: {
      type: "string",
      description:
        "comma-separated categories or groups: non_live, live, multi_turn (= all), overall (the three the reference runs); or single categories",
      default: "all",
    },
    "single-data": {
      type: "string",
      description:
        "folder holding bfcl_eval/data with the single-turn categories (default: --data; the bfcl-eval==2026.3.23 wheel's site-packages folder has them)",
    },
    data: dataArg("BFCL folder or the data folder holding bfcl/"),
  },
  async run({ args }) {
    const policy = policyFromFlags(args);
    const { multi: categories, single } = bfclSelectionFlag(args.category);
    const limit = limitFlag(args);
    const dataDir = resolveBfclDataDir({ flag: args.data, env: process.env, cwd: process.cwd() });
    const tasks: EvalTask[] = [
      ...(single.length > 0
        ? bfclSingleTasks(bfclSingleRoot(args["single-data"], dataDir), single, limit)
        : []),
      ...bfclTasks(dataDir, categories, { limit }),
    ];
    await withEvalInterrupt(
      (signal) =>
        runEvalCommand({
          benchmark: "bfcl",
          flags: args,
          policy,
          tasks,
          signal,
          groupOrder: [...single, ...categories],
          // Upstream's FC mode sends no system prompt; holdout turns bring tools, not text.
          makeAgent: ({ sample, signal }) =>
            fcAgent(policy.makeAgent({ seed: sample, signal, systemPrompt: null })),
          metrics: ({ episode }) => bfclMetrics(episode),
          settings: { categories: [...single, ...categories], limit: limit ?? null },
          extras: (_items, groups) => {
            const leaderboard = bfclLeaderboard(groups);
            const cells = BFCL_CATEGORIES.map(
              (c) => `${c} ${formatRate(leaderboard.categories[c])}`,
            ).join(", ");
            const lines = [
              `leaderboard multi-turn overall (unweighted mean of the four categories): ${formatRate(leaderboard.overall)}  [${cells}]`,
            ];
            const json: JsonObject = { leaderboard: leaderboard as unknown as JsonObject };
            if (single.length > 0) {
              const o = bfclOverall(groups);
              const na = (s: { accuracy: number; na: boolean }) =>
                `${formatRate(s.accuracy)}${s.na ? " (N/A: not every category ran)" : ""}`;
              lines.push(
                `leaderboard overall (10% non-live, 10% live, 10% irrelevance, 30% multi-turn, 40% agentic = 0, not run): ${na(o.overall)}`,
                `  non-live ${na(o.nonLive)}, live ${na(o.live)}, irrelevance ${na(o.irrelevance)}, multi-turn ${na(o.multiTurn)}`,
              );
              json.overall = o as unknown as JsonObject;
            }
            return { json, lines };
          },
        }),
      policy.outage,
    );
  },
});
