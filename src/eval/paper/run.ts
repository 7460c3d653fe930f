/**
 * @module eval/paper/run
 * One model's paper table: runs the setting's sources in column order (each resumable in its own
 * folder), and writes `results.json`, `table.md` and `table.csv`; reads such folders back to
 * compare models side by side.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import type { JsonObject } from "../../env/index.js";
import { writeJsonAtomic } from "../run/results.js";
import { runSource, sourceDir, type ColumnSource, type SourceContext } from "./sources.js";
import {
  isPaperSetting,
  PAPER_COLUMNS,
  renderCsv,
  renderMarkdown,
  type Cell,
  type PaperRow,
  type PaperSetting,
} from "./table.js";

/** The file a paper run writes its results to. */
export const PAPER_RESULTS_FILE = "results.json";

/** What `runPaper` returns. */
export interface PaperRun {
  row: PaperRow;
  /** True when cancelled: the folder holds what finished; rerun with resume to continue. */
  interrupted: boolean;
  /** The document written to results.json. */
  results: JsonObject;
}

/** Options of `runPaper`. */
export interface RunPaperOptions {
  setting: PaperSetting;
  model: string;
  /** The sources of the setting; together they must cover its columns. */
  sources: readonly ColumnSource[];
  outDir: string;
  context: Omit<SourceContext, "outDir">;
  /** Called when a source starts and ends. */
  onSource?: (source: ColumnSource, phase: "start" | "end") => void;
}

/** Writes the three files of one row. */
export async function writePaperFiles(
  outDir: string,
  row: PaperRow,
  results: JsonObject,
): Promise<void> {
  await writeJsonAtomic(join(outDir, PAPER_RESULTS_FILE), results);
  await writeFile(join(outDir, "table.md"), renderMarkdown([row]));
  await writeFile(join(outDir, "table.csv"), renderCsv([row]));
}

/** Runs every source in turn; a cancelled source stops the run with the finished columns written. */
export async function runPaper(options: RunPaperOptions): Promise<PaperRun> {
  const columns = PAPER_COLUMNS[options.setting];
  const covered = new Set(options.sources.flatMap((s) => s.columns));
  const missing = columns.filter((c) => !covered.has(c));
  if (missing.length > 0)
    throw new SpadeError("E_CONFIG", `no source for column(s) ${missing.join(", ")}`);
  const cells: Record<string, Cell> = {};
  const sources: JsonObject[] = [];
  let interrupted = false;
  for (const source of options.sources) {
    if (interrupted || options.context.signal.aborted) {
      interrupted = true;
      break;
    }
    options.onSource?.(source, "start");
    const result = await runSource(source, {
      ...options.context,
      outDir: sourceDir(options.outDir, source),
    });
    options.onSource?.(source, "end");
    Object.assign(cells, result.cells);
    sources.push({
      name: source.name,
      columns: [...source.columns],
      settings: result.settings,
      details: result.details,
      interrupted: result.interrupted,
    });
    if (result.interrupted) interrupted = true;
  }
  for (const c of columns)
    cells[c] ??= { status: "not available", reason: "interrupted before this column ran" };
  const row: PaperRow = {
    setting: options.setting,
    model: options.model,
    cells: Object.fromEntries(columns.map((c) => [c, cells[c] as Cell])),
  };
  const results = {
    setting: options.setting,
    model: options.model,
    columns: [...columns],
    cells: row.cells,
    sources,
    interrupted,
  } as unknown as JsonObject;
  await writePaperFiles(options.outDir, row, results);
  return { row, interrupted, results };
}

/** The row stored in a paper run's folder (E_IO when it is missing or malformed). */
export async function readPaperRow(dir: string): Promise<PaperRow> {
  const path = join(dir, PAPER_RESULTS_FILE);
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw new SpadeError("E_IO", `cannot read ${path}`, {
      nextStep: "pass folders written by `spade eval paper`",
      cause: err,
    });
  }
  const d = doc as { setting?: unknown; model?: unknown; cells?: unknown };
  if (
    typeof d.setting !== "string" ||
    !isPaperSetting(d.setting) ||
    typeof d.model !== "string" ||
    typeof d.cells !== "object" ||
    d.cells === null
  ) {
    throw new SpadeError("E_IO", `${path} is not a paper results file (setting, model, cells)`, {
      nextStep: "pass folders written by `spade eval paper`",
    });
  }
  return { setting: d.setting, model: d.model, cells: d.cells as Record<string, Cell> };
}
