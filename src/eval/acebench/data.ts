/**
 * @module eval/acebench/data
 * Reading the ACEBench agent data (`data_all/data_{en,zh}/data_agent_multi_{turn,step}.json`,
 * JSON Lines) with its answers (`possible_answer/`: ground-truth final states and milestone call
 * lists) from a benchmark folder laid out as upstream's repository.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { JsonObject } from "../../env/index.js";
import { SpadeError } from "../../errors.js";
import { readJsonSync, readJsonlSync } from "../data.js";
import type { Lang } from "./api-base.js";

/** The two agent categories. */
export type AceCategory = "multi_turn" | "multi_step";

/** Where the answers come from: upstream's files, or the one file `chenchen0103/ACEBench` fixed. */
export type AnswerSource = "upstream" | "fork-fix";

/** One function document as the data gives it (upstream's JSON-schema dialect: `dict`, `list`...). */
export interface FunctionDoc {
  name: string;
  description: string;
  parameters: JsonObject;
}

/** One agent entry joined with its answer. */
export interface AceEntry {
  /** e.g. `agent_multi_turn_3`. */
  id: string;
  lang: Lang;
  category: AceCategory;
  /** The task (multi-step) or the simulated user's instruction (multi-turn). */
  question: string;
  /** Per-class config; in practice only `BaseApi: {wifi, logged_in}`. */
  initialConfig: JsonObject;
  /** Class names in upstream's order (the order calls run on instances in). */
  involvedClasses: string[];
  /** Function documents shown to the agent. */
  functions: FunctionDoc[];
  /** Expected final states, `[{ClassName: {attribute: value}}]`. */
  groundTruth: JsonObject[];
  /** Expected call messages: one path, or several alternative paths. */
  mileStone: string[] | string[][];
}

/** Options for `loadAceEntries`. */
export interface LoadOptions {
  /** Which answers to join. Default `upstream` (what the replay summary used). */
  answers?: AnswerSource;
}

function readJsonLines(path: string): JsonObject[] {
  return readJsonlSync(path) as JsonObject[];
}

/** The path of an answer file, honouring the fork's fix where it has one. */
function answerPath(dir: string, lang: Lang, category: AceCategory, answers: AnswerSource): string {
  const file = `data_agent_${category}.json`;
  const fixed = join(dir, "fork-fix", "data_all", `data_${lang}`, "possible_answer", file);
  if (answers === "fork-fix" && existsSync(fixed)) return fixed;
  return join(dir, "data_all", `data_${lang}`, "possible_answer", file);
}

/**
 * Loads one language and category from `dir` (the `acebench` benchmark folder). Entries and
 * answers are paired by position, as upstream pairs them; their ids must agree.
 */
export function loadAceEntries(
  dir: string,
  lang: Lang,
  category: AceCategory,
  options: LoadOptions = {},
): AceEntry[] {
  const prompts = readJsonLines(
    join(dir, "data_all", `data_${lang}`, `data_agent_${category}.json`),
  );
  const answers = readJsonLines(answerPath(dir, lang, category, options.answers ?? "upstream"));
  if (prompts.length !== answers.length) {
    throw new SpadeError(
      "E_IO",
      `ACEBench ${lang}/${category}: ${prompts.length} entries but ${answers.length} answers`,
    );
  }
  return prompts.map((p, i) => {
    const a = answers[i] as JsonObject;
    if (p.id !== a.id)
      throw new SpadeError(
        "E_IO",
        `ACEBench ${lang}/${category}: entry ${String(p.id)} is paired with answer ${String(a.id)}`,
      );
    return {
      id: String(p.id),
      lang,
      category,
      question: String(p.question),
      initialConfig: (p.initial_config ?? {}) as JsonObject,
      involvedClasses: (p.involved_classes ?? []) as string[],
      functions: (p.function ?? []) as unknown as FunctionDoc[],
      groundTruth: (a.ground_truth ?? []) as JsonObject[],
      mileStone: (a.mile_stone ?? []) as string[] | string[][],
    };
  });
}

/** The four sets of the agent category, in the summary file's order. */
export const ACE_SETS: ReadonlyArray<{ lang: Lang; category: AceCategory }> = [
  { lang: "en", category: "multi_turn" },
  { lang: "en", category: "multi_step" },
  { lang: "zh", category: "multi_turn" },
  { lang: "zh", category: "multi_step" },
];

/** The first milestone path (the one a replay executes). */
export function firstPath(mileStone: AceEntry["mileStone"]): string[] {
  const first = mileStone[0];
  return Array.isArray(first) ? first : (mileStone as string[]);
}

/** What `derived/acebench_milestone_replay_summary.json` says for one set. */
export interface SummarySet {
  entries: number;
  replayStateMatch: number;
  failingIds: string[];
}

/** Reads the replay summary: `"en/agent_multi_turn"` -> its counts and failing ids. */
export function loadReplaySummary(dir: string): Map<string, SummarySet> {
  const path = join(dir, "derived", "acebench_milestone_replay_summary.json");
  const parsed = readJsonSync(path) as {
    results?: Record<
      string,
      { entries: number; replay_state_match: number; failing_ids: string[] }
    >;
  };
  const out = new Map<string, SummarySet>();
  for (const [key, v] of Object.entries(parsed.results ?? {})) {
    out.set(key, {
      entries: v.entries,
      replayStateMatch: v.replay_state_match,
      failingIds: v.failing_ids,
    });
  }
  return out;
}

/** The summary key of a set, e.g. `en/agent_multi_turn`. */
export function summaryKey(lang: Lang, category: AceCategory): string {
  return `${lang}/agent_${category}`;
}
