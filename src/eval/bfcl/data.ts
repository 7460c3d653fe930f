/**
 * @module eval/bfcl/data
 * Reading the BFCL multi-turn data as laid out under `../shared/benchmarks/bfcl`: entries,
 * ground truth, function documents, long-context padding and golden replay files. Values that
 * reach the Python ports are parsed with Python's int/float distinction (`parseJsonPy`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import type { Json, JsonObject } from "../../env/types.js";
import { dataRoot, datasetDir, readJsonlSync, readTextSync } from "../data.js";
import {
  isDict,
  isPyKey,
  parseJsonPy,
  PY_ELLIPSIS,
  type PyDict,
  type PyValue,
} from "../python/index.js";

/** The four BFCL v4 multi-turn categories. */
export const BFCL_CATEGORIES = ["base", "miss_func", "miss_param", "long_context"] as const;

/** One multi-turn category. */
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];

/** One chat message of a user turn. */
export interface BfclMessage {
  role: string;
  content: string;
}

/** One multi-turn entry with its ground truth. */
export interface BfclEntry {
  id: string;
  category: BfclCategory;
  /** Messages per turn; a miss_func holdout turn is empty. */
  question: BfclMessage[][];
  /** Per class, the scenario `_load_scenario` receives. */
  initialConfig: PyDict;
  involvedClasses: string[];
  /** Turn index (as a string) -> function names withheld until that turn (miss_func only). */
  missedFunction: Record<string, string[]>;
  /** Ground-truth call strings per turn. */
  groundTruth: string[][];
}

/** One function document line of `multi_turn_func_doc/*.json` (BFCL's schema dialect). */
export interface BfclFunctionDoc {
  name: string;
  description: string;
  parameters: JsonObject;
  response?: JsonObject;
}

/** One line of a golden replay file. */
export interface GoldenEntry {
  id: string;
  turns: Array<{ calls: string[]; results: string[]; state_after: JsonObject }>;
}

/** The function-document file of each class. */
export const FUNC_DOC_FILES: Readonly<Record<string, string>> = {
  GorillaFileSystem: "gorilla_file_system.json",
  MathAPI: "math_api.json",
  MessageAPI: "message_api.json",
  TwitterAPI: "posting_api.json",
  TicketAPI: "ticket_api.json",
  TradingBot: "trading_bot.json",
  TravelAPI: "travel_booking.json",
  VehicleControlAPI: "vehicle_control.json",
};

/** Reads a text file (eval/data's reader: E_IO naming the file when it cannot). */
export function readText(path: string): string {
  return readTextSync(path);
}

function jsonLines(path: string): Json[] {
  return readJsonlSync(path) as Json[];
}

/** Path of a category's entry file. */
export function entriesPath(dataDir: string, category: BfclCategory): string {
  return join(dataDir, "bfcl_eval", "data", `BFCL_v4_multi_turn_${category}.json`);
}

/** Path of a category's golden replay file. */
export function goldenPath(dataDir: string, category: BfclCategory): string {
  return join(dataDir, "golden", `BFCL_v4_multi_turn_${category}.replay.jsonl`);
}

/** Loads a category's entries joined with their ground truth, in file order. */
export function loadEntries(dataDir: string, category: BfclCategory): BfclEntry[] {
  const answers = new Map<string, string[][]>();
  const answerFile = join(
    dataDir,
    "bfcl_eval",
    "data",
    "possible_answer",
    `BFCL_v4_multi_turn_${category}.json`,
  );
  for (const row of jsonLines(answerFile) as JsonObject[])
    answers.set(row.id as string, row.ground_truth as string[][]);
  const path = entriesPath(dataDir, category);
  return readText(path)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const row = JSON.parse(line) as JsonObject;
      const id = row.id as string;
      const groundTruth = answers.get(id);
      if (!groundTruth)
        throw new SpadeError("E_PARSE", `${id} has no ground truth in ${answerFile}`);
      // Parse initial_config again with ints kept apart from floats.
      const typed = parseJsonPy(line) as PyDict;
      const config = typed.get("initial_config");
      return {
        id,
        category,
        question: row.question as unknown as BfclMessage[][],
        initialConfig: isDict(config) ? config : new Map(),
        involvedClasses: row.involved_classes as string[],
        missedFunction: (row.missed_function ?? {}) as Record<string, string[]>,
        groundTruth,
      };
    });
}

/** Loads the function documents of every class named in FUNC_DOC_FILES. */
export function loadFunctionDocs(dataDir: string): Map<string, BfclFunctionDoc[]> {
  const docs = new Map<string, BfclFunctionDoc[]>();
  for (const [className, file] of Object.entries(FUNC_DOC_FILES)) {
    const path = join(dataDir, "bfcl_eval", "data", "multi_turn_func_doc", file);
    docs.set(className, jsonLines(path) as unknown as BfclFunctionDoc[]);
  }
  return docs;
}

/** Turns the JSON conversion markers back into Python values: `{"__set": [...]}`, `{"__ellipsis": true}`. */
function revivePython(v: PyValue): PyValue {
  if (Array.isArray(v)) return v.map(revivePython);
  if (isDict(v)) {
    if (v.size === 1 && Array.isArray(v.get("__set")))
      return new Set((v.get("__set") as PyValue[]).filter(isPyKey));
    if (v.size === 1 && v.get("__ellipsis") === true) return PY_ELLIPSIS;
    const out: PyDict = new Map();
    for (const [k, x] of v) out.set(k, revivePython(x));
    return out;
  }
  return v;
}

const longContextCache = new Map<string, PyDict>();

/** The long-context constants (`long_context_data.json`) as Python values; parsed once per path. */
export function loadLongContextData(dataDir: string): PyDict {
  const path = join(dataDir, "long_context_data.json");
  let data = longContextCache.get(path);
  if (!data) {
    data = revivePython(parseJsonPy(readText(path))) as PyDict;
    longContextCache.set(path, data);
  }
  return data;
}

/** Loads a golden replay file. */
export function loadGolden(path: string): GoldenEntry[] {
  return jsonLines(path) as unknown as GoldenEntry[];
}

/**
 * The BFCL data folder: `--data` (either the bfcl folder itself or a data folder holding
 * `bfcl/`), else the data folder of `dataRoot` (`$SPADE_DATA_DIR`, else the user cache) + `bfcl/`.
 */
export function resolveBfclDataDir(options: {
  flag?: string;
  env?: Record<string, string | undefined>;
  cwd: string;
}): string {
  const root = dataRoot({ flag: options.flag, env: options.env, cwd: options.cwd });
  return options.flag ? datasetDir(root, "bfcl", "bfcl_eval", existsSync) : join(root, "bfcl");
}
