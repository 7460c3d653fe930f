/**
 * @module eval/bfcl/replay
 * Replaying ground truth through the port: against a golden file (every result string and the
 * state after every turn must equal what upstream's own code produced), or, where no golden file
 * exists, through the checker with the ground truth as the model (which must pass).
 */
import { existsSync } from "node:fs";
import type { Json } from "../../env/types.js";
import { checkEntry } from "./checker.js";
import { isLongContext } from "./categories.js";
import {
  goldenPath,
  loadEntries,
  loadGolden,
  loadLongContextData,
  type BfclCategory,
  type BfclEntry,
  type GoldenEntry,
} from "./data.js";
import { BfclInstances } from "./executor.js";
import { BfclSession, type BfclSessionOptions } from "./session.js";
import { instancesState, jsonEqual } from "./state.js";

/** One difference between the port and the reference. */
export interface ReplayMismatch {
  id: string;
  /** Turn index, or -1 for the entry as a whole. */
  turn: number;
  what: string;
}

/** Outcome of replaying a category. */
export interface ReplayReport {
  /** `golden`: compared with a golden file; `checker`: ground truth checked against itself. */
  mode: "golden" | "checker";
  entries: number;
  matched: number;
  mismatches: ReplayMismatch[];
}

function short(v: Json | string): string {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

/** First differing path between two JSON values, for a readable mismatch. */
function firstDifference(a: Json, b: Json, path = ""): string {
  if (
    typeof a === "object" &&
    typeof b === "object" &&
    a !== null &&
    b !== null &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!Object.hasOwn(a, k) || !Object.hasOwn(b, k))
        return `${path}/${k}: present on one side only`;
      if (!jsonEqual(a[k]!, b[k]!)) return firstDifference(a[k]!, b[k]!, `${path}/${k}`);
    }
  }
  return `${path}: port ${short(a)} vs golden ${short(b)}`;
}

/** Replays one entry's ground truth and compares it with its golden line. */
export function replayEntry(
  entry: BfclEntry,
  golden: GoldenEntry,
  options: BfclSessionOptions = {},
): ReplayMismatch[] {
  const out: ReplayMismatch[] = [];
  if (golden.turns.length !== entry.groundTruth.length) {
    return [
      {
        id: entry.id,
        turn: -1,
        what: `golden has ${golden.turns.length} turns, ground truth ${entry.groundTruth.length}`,
      },
    ];
  }
  const session = new BfclSession(options);
  const instances = new BfclInstances(
    session,
    entry.involvedClasses,
    entry.initialConfig,
    isLongContext(entry.id),
  );
  golden.turns.forEach((turn, i) => {
    const results = instances.executeAll(entry.groundTruth[i]!);
    results.forEach((result, j) => {
      if (result !== turn.results[j]) {
        out.push({
          id: entry.id,
          turn: i,
          what: `result of ${entry.groundTruth[i]![j]}: port ${short(result)} vs golden ${short(turn.results[j] ?? "<none>")}`,
        });
      }
    });
    const state = instancesState(instances);
    if (!jsonEqual(state, turn.state_after))
      out.push({
        id: entry.id,
        turn: i,
        what: `state ${firstDifference(state, turn.state_after)}`,
      });
  });
  return out;
}

/** Options of a category replay. */
export interface ReplayOptions {
  /** Golden file; default `golden/BFCL_v4_multi_turn_<category>.replay.jsonl` when it exists. */
  goldenFile?: string;
  /** Clock for age checks; default the real date. */
  today?: () => Date;
}

/** Replays every entry of a category. */
export function replayCategory(
  dataDir: string,
  category: BfclCategory,
  options: ReplayOptions = {},
): ReplayReport {
  const entries = loadEntries(dataDir, category);
  const session: BfclSessionOptions = {
    loadLongContext: () => loadLongContextData(dataDir),
    today: options.today,
  };
  const goldenFile = options.goldenFile ?? goldenPath(dataDir, category);
  const mismatches: ReplayMismatch[] = [];
  let matched = 0;
  if (options.goldenFile !== undefined || existsSync(goldenFile)) {
    const golden = new Map(loadGolden(goldenFile).map((g) => [g.id, g]));
    for (const entry of entries) {
      const line = golden.get(entry.id);
      const found = line
        ? replayEntry(entry, line, session)
        : [{ id: entry.id, turn: -1, what: "no golden line" }];
      if (found.length === 0) matched++;
      mismatches.push(...found);
    }
    return { mode: "golden", entries: entries.length, matched, mismatches };
  }
  for (const entry of entries) {
    const verdict = checkEntry(
      entry,
      entry.groundTruth.map((calls) => [calls]),
      session,
    );
    if (verdict.valid) matched++;
    else
      mismatches.push({
        id: entry.id,
        turn: verdict.turn ?? -1,
        what: `${verdict.errorType}: ${verdict.errorMessage}`,
      });
  }
  return { mode: "checker", entries: entries.length, matched, mismatches };
}
