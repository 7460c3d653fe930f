/**
 * @module eval/run/acebench
 * ACEBench agent entries for the evaluation runner: tasks per set (language x category), the
 * simulated user of multi-turn entries played by a chat model, per-sample end-to-end and
 * process scores, and upstream's aggregation (per set, rounded to 3 places; per language the
 * agent summary as the unweighted mean of the two sets' end-to-end accuracies).
 */
import type { Env, JsonObject } from "../../env/index.js";
import type { Episode } from "../../rollout/index.js";
import type { ChatBackend, ChatMessage, SamplingParams } from "../../policy/index.js";
import {
  AceBenchEnv,
  aggregateScores,
  loadAceEntries,
  processAccuracy,
  userSimulatorPrompt,
  type AceCategory,
  type AceEntry,
  type DialogueTurn,
  type Lang,
  type UserSimulator,
} from "../acebench/index.js";
import { roundFloat } from "../python/index.js";
import type { EvalTask, ItemResult } from "./types.js";

/** An ACEBench entry as an evaluation task; `group` is its set, e.g. `en/multi_turn`. */
export interface AceTask extends EvalTask {
  entry: AceEntry;
}

/** The set name of a language and category. */
export function aceSetName(lang: Lang, category: AceCategory): string {
  return `${lang}/${category}`;
}

/** Options of `aceTasks`. */
export interface AceTaskOptions {
  /** Only the first N entries of each set. Default all. */
  limit?: number;
  /** The simulated user of a multi-turn entry's episode (called once per episode). */
  userFor?: (entry: AceEntry) => UserSimulator;
}

/** The entries of `sets` (in that order) as tasks; ids are `<lang>/<entry id>`. */
export function aceTasks(
  dir: string,
  sets: ReadonlyArray<{ lang: Lang; category: AceCategory }>,
  options: AceTaskOptions = {},
): AceTask[] {
  return sets.flatMap(({ lang, category }) => {
    const entries = loadAceEntries(dir, lang, category);
    return (options.limit === undefined ? entries : entries.slice(0, options.limit)).map(
      (entry) => ({
        id: `${lang}/${entry.id}`,
        group: aceSetName(lang, category),
        entry,
        open: () =>
          new AceBenchEnv(
            entry,
            category === "multi_turn" ? { user: options.userFor?.(entry) } : {},
          ),
      }),
    );
  });
}

/** Upstream's user model settings (`APIUSER`: temperature 0.001, top_p 1, 1,000 tokens). */
export const USER_SAMPLING: SamplingParams = { temperature: 0.001, top_p: 1, max_tokens: 1000 };

/** Upstream removes a leading `user:` / `agent:` from what the agent said before the user model reads it. */
function withoutSpeaker(text: string): string {
  if (text.startsWith("user:")) return text.slice(5);
  if (text.startsWith("agent:")) return text.slice(6);
  return text;
}

/**
 * The simulated user of `entry`, played by a chat model: the system message is
 * `userSimulatorPrompt(entry)`, the agent's lines are `user` messages and the model's own lines
 * `assistant` messages (upstream records them as `system` messages, which strict servers reject).
 */
export function chatUserSimulator(
  backend: ChatBackend,
  entry: AceEntry,
  options: { sampling?: SamplingParams; signal?: AbortSignal } = {},
): UserSimulator {
  return {
    async reply(history: readonly DialogueTurn[]): Promise<string> {
      const messages: ChatMessage[] = [
        { role: "system", content: userSimulatorPrompt(entry) },
        ...history.map(
          (t): ChatMessage =>
            t.role === "agent"
              ? { role: "user", content: withoutSpeaker(t.content) }
              : { role: "assistant", content: t.content },
        ),
      ];
      const completion = await backend.complete({
        messages,
        sampling: options.sampling ?? USER_SAMPLING,
        signal: options.signal,
      });
      return completion.choices[0]?.content ?? "";
    },
  };
}

/**
 * End-to-end and process scores of one episode. A failed episode counts as not end-to-end
 * correct; its process score is taken over the messages it sent to execution before failing.
 */
export function aceMetrics(entry: AceEntry, env: Env, episode: Episode): JsonObject {
  if (!(env instanceof AceBenchEnv)) return {};
  const score = env.score();
  if (episode.failure === null && score.endToEnd) return { endToEnd: true, process: 1 };
  return {
    endToEnd: false,
    process: processAccuracy(env.processMessages(), entry.mileStone),
    errors: score.errors,
  };
}

/** One set's numbers as upstream prints them. */
export interface AceSetScore {
  set: string;
  /** Correct samples / samples, rounded to 3 places. */
  endToEndAccuracy: number;
  /** Mean process score over samples, rounded to 3 places. */
  processAccuracy: number;
  correct: number;
  total: number;
}

/** Per-set scores (over every sample of every item) and per-language agent summaries. */
export function aceScores(
  items: readonly ItemResult[],
  setOrder: readonly string[],
): { sets: AceSetScore[]; languages: Array<{ lang: string; agentSummary: number | null }> } {
  const sets = setOrder
    .map((set) => {
      const scores = items
        .filter((i) => i.group === set)
        .flatMap((i) =>
          i.samples.map((s) => ({
            id: i.id,
            endToEnd: s.metrics.endToEnd === true && s.success,
            process: typeof s.metrics.process === "number" ? s.metrics.process : 0,
          })),
        );
      return { set, ...aggregateScores(scores) };
    })
    .filter((s) => s.total > 0);
  const langs = [...new Set(sets.map((s) => s.set.split("/")[0] as string))];
  const languages = langs.map((lang) => {
    const turn = sets.find((s) => s.set === `${lang}/multi_turn`);
    const step = sets.find((s) => s.set === `${lang}/multi_step`);
    // Upstream: calculate_unweighted_accuracy over the two rounded set accuracies, rounded again.
    return {
      lang,
      agentSummary:
        turn && step ? roundFloat((turn.endToEndAccuracy + step.endToEndAccuracy) / 2, 3) : null,
    };
  });
  return { sets, languages };
}
