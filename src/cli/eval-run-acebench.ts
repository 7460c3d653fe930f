/**
 * @module cli/eval-run-acebench
 * `spade eval acebench --policy ... [--user-model NAME --user-base-url URL]`: a model plays the
 * ACEBench agent entries (multi-step alone; multi-turn with a simulated user played by a chat
 * model); end-to-end and process accuracy per set as upstream computes them.
 */
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import {
  NORMAL_CATEGORIES,
  SPECIAL_CATEGORIES,
  nsSystemPrompt,
  type AceCategory,
  type Lang,
  type NsCategory,
} from "../eval/acebench/index.js";
import { dataRoot } from "../eval/index.js";
import {
  aceMetrics,
  aceNsEntries,
  aceNsScores,
  aceNsTasks,
  aceScores,
  aceSetName,
  aceTasks,
  chatUserSimulator,
  formatRate,
  type AceTask,
} from "../eval/run/index.js";
import { acebenchFolder } from "./eval-acebench.js";
import {
  evalRunArgs,
  withEvalInterrupt,
  limitFlag,
  runEvalCommand,
  scoreExtras,
} from "./eval-run.js";
import { policyFromFlags, secondModelBackend } from "./policy.js";
import { dataArg } from "./common.js";

const LANGS: readonly Lang[] = ["en", "zh"];
const CATEGORIES: readonly AceCategory[] = ["multi_turn", "multi_step"];

/** The flags of the model that plays the simulated user of multi-turn entries, and its server. */
const userModelArgs = {
  "user-model": {
    type: "string",
    description: "model that plays the simulated user (default --model)",
  },
  "user-base-url": {
    type: "string",
    description: "OpenAI-compatible server of the user model (default --base-url)",
  },
  "user-api-key-env": {
    type: "string",
    description:
      "variable holding the user server's key (default --api-key-env when --user-base-url is not given)",
  },
} as const;

/** A `--lang` or `--category` value as a list. */
function choice<T extends string>(flag: string, value: string | undefined, all: readonly T[]): T[] {
  const v = value ?? "all";
  if (v === "all") return [...all];
  if (!(all as readonly string[]).includes(v))
    throw new SpadeError(
      "E_CONFIG",
      `--${flag} must be one of ${all.join(", ")}, all (got ${JSON.stringify(v)})`,
    );
  return [v as T];
}

/** The normal/special categories a `--category` value names, or null for the agent sets. */
function normalSpecialChoice(value: string | undefined): NsCategory[] | null {
  const all: readonly string[] = [...NORMAL_CATEGORIES, ...SPECIAL_CATEGORIES];
  if (value === "normal") return [...NORMAL_CATEGORIES];
  if (value === "special") return [...SPECIAL_CATEGORIES];
  if (value === "normal+special") return [...NORMAL_CATEGORIES, ...SPECIAL_CATEGORIES];
  if (value !== undefined && all.includes(value)) return [value as NsCategory];
  return null;
}

/** The summary lines of the normal and special categories: accuracy each, then ACEBench-N and -S. */
function nsScoreLines(scores: ReturnType<typeof aceNsScores>): string[] {
  return [
    ...scores.categories.map(
      (c) =>
        `${c.category}: ${formatRate(c.accuracy)} (upstream's accuracy${c.processAccuracy === undefined ? "" : `; process ${formatRate(c.processAccuracy)}`})`,
    ),
    ...(scores.normal === null
      ? []
      : [`ACEBench-N (mean of the normal categories): ${formatRate(scores.normal)}`]),
    ...(scores.special === null
      ? []
      : [`ACEBench-S (mean of the special categories): ${formatRate(scores.special)}`]),
  ];
}

/** The summary lines of the agent sets: accuracy per set, then each language's agent summary. */
function agentScoreLines(scores: ReturnType<typeof aceScores>): string[] {
  return [
    ...scores.sets.map(
      (s) =>
        `${s.set}: end-to-end ${formatRate(s.endToEndAccuracy)}, process ${formatRate(s.processAccuracy)} (${s.correct}/${s.total} samples)`,
    ),
    ...scores.languages.map(
      (l) =>
        `${l.lang} agent summary (mean of multi_turn and multi_step end-to-end): ${formatRate(l.agentSummary)}`,
    ),
  ];
}

/** Normal and special entries (English): one reply each, scored by upstream's checker. */
async function runNormalSpecial(
  args: Record<string, unknown> & Parameters<typeof runEvalCommand>[0]["flags"],
  policy: ReturnType<typeof policyFromFlags>,
  categories: NsCategory[],
): Promise<void> {
  if (args.lang !== undefined && args.lang !== "all" && args.lang !== "en") {
    throw new SpadeError(
      "E_CONFIG",
      `the normal and special categories are scored in English only (got --lang ${String(args.lang)})`,
      { nextStep: "drop --lang or pass --lang en" },
    );
  }
  const limit = limitFlag(args);
  const dir = acebenchFolder(dataRoot({ flag: args.data as string | undefined, env: process.env }));
  const entries = aceNsEntries(dir, categories, limit);
  await withEvalInterrupt(
    (signal) =>
      runEvalCommand({
        benchmark: "acebench",
        flags: args,
        policy,
        tasks: aceNsTasks(entries),
        signal,
        groupOrder: categories,
        makeAgent: ({ task, sample, signal }) =>
          policy.makeAgent({ seed: sample, signal, systemPrompt: nsSystemPrompt(task.entry) }),
        metrics: ({ episode }) => {
          const info = episode.steps.at(-1)?.info ?? {};
          return {
            valid: (info as { valid?: boolean }).valid ?? false,
            errorType: (info as { errorType?: string }).errorType ?? "",
          };
        },
        settings: { lang: "en", categories, limit: limit ?? null },
        extras: (items) => scoreExtras(aceNsScores(items, entries), nsScoreLines),
      }),
    policy.outage,
  );
}

/** `spade eval acebench --policy ...`. */
export const acebenchRunCommand = defineCommand({
  meta: {
    name: "acebench",
    description:
      "Evaluate a policy on the ACEBench agent entries: end-to-end and process accuracy per set, agent summary per language",
  },
  args: {
    ...evalRunArgs,
    lang: { type: "string", description: "en | zh | all", default: "all" },
    category: {
      type: "string",
      description:
        "multi_turn | multi_step | all (agent), or normal | special | normal+special | one category such as normal_atom_bool (English)",
      default: "all",
    },
    ...userModelArgs,
    data: dataArg("data folder or its acebench folder"),
  },
  async run({ args }) {
    const policy = policyFromFlags(args);
    const nsCategories = normalSpecialChoice(args.category);
    if (nsCategories !== null) {
      await runNormalSpecial(args, policy, nsCategories);
      return;
    }
    const langs = choice("lang", args.lang, LANGS);
    const categories = choice("category", args.category, CATEGORIES);
    const sets = langs.flatMap((lang) => categories.map((category) => ({ lang, category })));
    const limit = limitFlag(args);
    const dir = acebenchFolder(dataRoot({ flag: args.data, env: process.env }));
    await withEvalInterrupt(async (signal) => {
      let userFor: ((entry: AceTask["entry"]) => ReturnType<typeof chatUserSimulator>) | undefined;
      let userModel: string | null = null;
      if (categories.includes("multi_turn")) {
        const model = args["user-model"] ?? (policy.name === "openai" ? args.model : undefined);
        const baseURL =
          args["user-base-url"] ?? (policy.name === "openai" ? args["base-url"] : undefined);
        if (!model || !baseURL) {
          throw new SpadeError(
            "E_CONFIG",
            "multi-turn ACEBench entries need a simulated user played by a model",
            {
              nextStep: "pass --user-model NAME --user-base-url URL (or --category multi_step)",
            },
          );
        }
        const apiKeyEnv =
          args["user-api-key-env"] ??
          (args["user-base-url"] === undefined ? args["api-key-env"] : undefined);
        const backend = secondModelBackend(policy, args, { baseURL, model, apiKeyEnv });
        userModel = model;
        userFor = (entry) => chatUserSimulator(backend, entry, { signal });
      }
      const setOrder = sets.map((s) => aceSetName(s.lang, s.category));
      await runEvalCommand({
        benchmark: "acebench",
        flags: args,
        policy,
        tasks: aceTasks(dir, sets, { limit, userFor }),
        signal,
        groupOrder: setOrder,
        // The rules and the task come in the first observation, as upstream's agent prompt holds them.
        makeAgent: ({ sample, signal }) =>
          policy.makeAgent({ seed: sample, signal, systemPrompt: null }),
        metrics: ({ task, env, episode }) => aceMetrics(task.entry, env, episode),
        settings: { langs, categories, userModel, limit: limit ?? null },
        extras: (items) => scoreExtras(aceScores(items, setOrder), agentScoreLines),
      });
    }, policy.outage);
  },
});
