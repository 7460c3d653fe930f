/**
 * @module eval/acebench/replay
 * Milestone replay: executing an entry's first milestone path through the port, from the
 * entry's initial state, with upstream's multi-turn executor (as the reference summary did), and
 * scoring the final state against the ground truth as upstream's checker does. Milestones that
 * upstream cannot decode (invalid Python in the data) are skipped, as upstream's agent would
 * never send them to execution; nothing in the data is repaired.
 */
import { decodeCalls } from "./calls.js";
import { stripWhitespace } from "../python/index.js";
import { scoreEntry, type EntryScore, type MissingClassRule } from "./checker.js";
import {
  ACE_SETS,
  firstPath,
  loadAceEntries,
  loadReplaySummary,
  summaryKey,
  type AceEntry,
} from "./data.js";
import type { Lang } from "./api-base.js";
import { AceWorld, type ExecutionMode, type SavedState } from "./world.js";

/** One entry's replay. */
export interface ReplayResult extends EntryScore {
  /** Upstream's errors on the final state (empty when it matches). */
  errors: string[];
  /** Milestones upstream cannot decode, skipped. */
  undecodable: string[];
  /** Milestones whose execution raised (multi-turn: the whole message was aborted). */
  failedMilestones: Array<{ milestone: string; error: string }>;
  /** The saved final state that was compared. */
  finalState: SavedState[];
}

/** Options for `replayEntry`. */
export interface ReplayOptions {
  /** Executor semantics. Default `multi_turn`, what the reference summary used for all sets. */
  mode?: ExecutionMode;
  /** How a class missing from the state is judged. Default `fail`, as the reference summary. */
  missingClass?: MissingClassRule;
}

/** Replays one entry's first milestone path and scores the result. */
export function replayEntry(entry: AceEntry, options: ReplayOptions = {}): ReplayResult {
  const world = new AceWorld(entry.lang, entry.involvedClasses, entry.initialConfig);
  const undecodable: string[] = [];
  const failedMilestones: ReplayResult["failedMilestones"] = [];
  const process: string[] = [];
  for (const milestone of firstPath(entry.mileStone)) {
    // The reference replay reads milestones without their surrounding whitespace (twelve end in
    // a space, which upstream's decoder itself would reject).
    const calls = decodeCalls(stripWhitespace(milestone));
    if (calls === null) {
      undecodable.push(milestone);
      continue;
    }
    process.push(milestone);
    const run = world.execute(calls, options.mode ?? "multi_turn");
    if (run.abortedBy !== null) failedMilestones.push({ milestone, error: run.abortedBy });
    else
      for (const r of run.results)
        if (r.startsWith("Error during execution: "))
          failedMilestones.push({ milestone, error: r });
  }
  const finalState = world.savedState();
  const score = scoreEntry(entry, finalState, process, options.missingClass);
  return { ...score, undecodable, failedMilestones, finalState };
}

/** How the port's replay compares with the reference summary. */
export interface SummaryComparison {
  /** Entries replayed. */
  entries: number;
  /** Entries whose outcome (reaches its ground truth or not) equals the summary's. */
  matched: number;
  /** Each disagreement, with the entry as `en/agent_multi_turn_6`. */
  mismatches: Array<{ id: string; what: string }>;
}

/**
 * Replays every entry of the given languages in `dir` (the acebench benchmark folder) and
 * compares each outcome with `derived/acebench_milestone_replay_summary.json`.
 */
export function compareWithSummary(
  dir: string,
  langs: readonly Lang[] = ["en", "zh"],
): SummaryComparison {
  const summary = loadReplaySummary(dir);
  const out: SummaryComparison = { entries: 0, matched: 0, mismatches: [] };
  for (const { lang, category } of ACE_SETS.filter((s) => langs.includes(s.lang))) {
    const key = summaryKey(lang, category);
    const expected = summary.get(key);
    for (const entry of loadAceEntries(dir, lang, category)) {
      out.entries++;
      const id = `${lang}/${entry.id}`;
      if (!expected) {
        out.mismatches.push({ id, what: `the summary has no ${key} set` });
        continue;
      }
      const expectedMatch = !expected.failingIds.includes(entry.id);
      const r = replayEntry(entry);
      if (r.endToEnd === expectedMatch) out.matched++;
      else if (r.endToEnd)
        out.mismatches.push({
          id,
          what: "the replay reaches the ground truth; the summary says it does not",
        });
      else
        out.mismatches.push({
          id,
          what: `the replay misses the ground truth (${r.errors.join("; ")}); the summary says it reaches it`,
        });
    }
  }
  return out;
}
