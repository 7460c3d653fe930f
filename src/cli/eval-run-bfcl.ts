/**
 * @module cli/eval-run-bfcl
 * `spade eval bfcl --policy ... [--category base|miss_func|miss_param|long_context|all]`: a
 * model plays BFCL v4 multi-turn entries with native tool calls, as upstream's FC mode runs
 * them; accuracy per category and the leaderboard's overall (unweighted mean of the four).
 */
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import type { JsonObject } from "../env/index.js";
import { BFCL_CATEGORIES, resolveBfclDataDir, type BfclCategory } from "../eval/bfcl/index.js";
import { bfclLeaderboard, bfclMetrics, bfclTasks, fcAgent, formatRate } from "../eval/run/index.js";
import { evalRunArgs, interruptSignal, limitFlag, runEvalCommand } from "./eval-run.js";
import { policyFromFlags } from "./policy.js";

/** `--category` as a list of categories. */
export function bfclCategoriesFlag(value: string | undefined): BfclCategory[] {
  const v = value ?? "all";
  if (v === "all") return [...BFCL_CATEGORIES];
  if (!(BFCL_CATEGORIES as readonly string[]).includes(v)) {
    throw new SpadeError("E_CONFIG", `unknown --category "${v}"`, { nextStep: `one of ${BFCL_CATEGORIES.join(", ")}, all` });
  }
  return [v as BfclCategory];
}

/** `spade eval bfcl --policy ...`. */
export const bfclRunCommand = defineCommand({
  meta: {
    name: "bfcl",
    description: "Evaluate a policy on BFCL v4 multi-turn with native tool calls: accuracy per category and the leaderboard's overall",
  },
  args: {
    ...evalRunArgs,
    category: { type: "string", description: `${BFCL_CATEGORIES.join(" | ")} | all`, default: "all" },
    data: { type: "string", description: "BFCL data folder or benchmarks root (default $SPADE_BENCHMARKS, else ../shared/benchmarks/bfcl)" },
  },
  async run({ args }) {
    const policy = policyFromFlags(args);
    const categories = bfclCategoriesFlag(args.category);
    const limit = limitFlag(args);
    const dataDir = resolveBfclDataDir({ flag: args.data, env: process.env, cwd: process.cwd() });
    const tasks = bfclTasks(dataDir, categories, { limit });
    const interrupt = interruptSignal();
    try {
      await runEvalCommand({
        benchmark: "bfcl",
        flags: args,
        policy,
        tasks,
        signal: interrupt.signal,
        groupOrder: BFCL_CATEGORIES,
        // Upstream's FC mode sends no system prompt; holdout turns bring tools, not text.
        makeAgent: ({ sample, signal }) => fcAgent(policy.makeAgent({ seed: sample, signal, systemPrompt: null })),
        metrics: ({ episode }) => bfclMetrics(episode),
        settings: { categories, limit: limit ?? null },
        extras: (_items, groups) => {
          const leaderboard = bfclLeaderboard(groups);
          const cells = BFCL_CATEGORIES.map((c) => `${c} ${formatRate(leaderboard.categories[c])}`).join(", ");
          return {
            json: { leaderboard: leaderboard as unknown as JsonObject },
            lines: [`leaderboard multi-turn overall (unweighted mean of the four categories): ${formatRate(leaderboard.overall)}  [${cells}]`],
          };
        },
      });
    } finally {
      interrupt.dispose();
    }
  },
});
