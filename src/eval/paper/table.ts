/**
 * @module eval/paper/table
 * The paper's two result tables as data: the reference's column order (eval_offline/
 * table_mapping.py), a cell that is a number or says why it is missing, and the renderings
 * `table.md` / `table.csv` of one model or of several side by side with the difference per column.
 */
import { SpadeError } from "../../errors.js";

/** The two settings of the paper. */
export const PAPER_SETTINGS = ["games", "tool-use"] as const;

/** One setting. */
export type PaperSetting = (typeof PAPER_SETTINGS)[number];

/** RQ1 (games) and RQ2 (tool use) columns in the reference's order. */
export const PAPER_COLUMNS: Readonly<Record<PaperSetting, readonly string[]>> = Object.freeze({
  games: [
    "AIME-25",
    "AIME-26",
    "GPQA-Diamond",
    "LiveCodeBench",
    "RG:Math",
    "RG:Algorithmic",
    "RG:Cognition",
    "RG:Logic",
  ],
  "tool-use": [
    "BFCL-v4",
    "Tau2-Retail",
    "Tau2-Airline",
    "Tau2-Telecom",
    "ACEBench-N",
    "ACEBench-S",
    "ACEBench-A",
    "ACEBench",
  ],
});

/** One cell: a score in [0, 1], or why there is none. */
export type Cell =
  | { status: "ok"; value: number }
  | { status: "not available" | "not supported yet" | "failed"; reason: string };

/** One model's row: a cell per column of its setting. */
export interface PaperRow {
  setting: PaperSetting;
  /** The model or checkpoint, as the policy names it. */
  model: string;
  cells: Record<string, Cell>;
}

/** True when `s` is a setting. */
export function isPaperSetting(s: string): s is PaperSetting {
  return (PAPER_SETTINGS as readonly string[]).includes(s);
}

/** A score as the paper prints it: a percentage with one decimal. */
export function formatScore(value: number): string {
  return (100 * value).toFixed(1);
}

function cellText(cell: Cell | undefined): string {
  if (!cell) return "n/a";
  if (cell.status === "ok") return formatScore(cell.value);
  return cell.status;
}

function checkSameSetting(rows: readonly PaperRow[]): PaperSetting {
  const first = rows[0];
  if (!first) throw new SpadeError("E_CONFIG", "no results to put in a table");
  const other = rows.find((r) => r.setting !== first.setting);
  if (other)
    throw new SpadeError(
      "E_CONFIG",
      `cannot compare a ${first.setting} table with a ${other.setting} table`,
      { nextStep: "compare results of one --setting" },
    );
  return first.setting;
}

/** The difference of two cells (`b - a`) in points, or "" when either is missing. */
export function difference(a: Cell | undefined, b: Cell | undefined): string {
  if (a?.status !== "ok" || b?.status !== "ok") return "";
  const d = 100 * (b.value - a.value);
  return `${d >= 0 ? "+" : ""}${d.toFixed(1)}`;
}

/**
 * The table's rows as text cells: a header, one row per model, and with two or more models one
 * "delta" row per later model (its difference to the first, the baseline, in points).
 */
export function tableCells(rows: readonly PaperRow[]): string[][] {
  const setting = checkSameSetting(rows);
  const columns = PAPER_COLUMNS[setting];
  const out = [
    ["model", ...columns],
    ...rows.map((r) => [r.model, ...columns.map((c) => cellText(r.cells[c]))]),
  ];
  const base = rows[0] as PaperRow;
  for (const r of rows.slice(1))
    out.push([
      `${r.model} - ${base.model}`,
      ...columns.map((c) => difference(base.cells[c], r.cells[c])),
    ]);
  return out;
}

/** A Markdown table (pipes in names escaped). */
export function renderMarkdown(rows: readonly PaperRow[]): string {
  const cells = tableCells(rows).map((r) => r.map((c) => c.replace(/\|/g, "\\|")));
  const header = cells[0] as string[];
  const lines = [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
  ];
  for (const r of cells.slice(1)) lines.push(`| ${r.join(" | ")} |`);
  return `${lines.join("\n")}\n`;
}

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV with the same cells as the Markdown table. */
export function renderCsv(rows: readonly PaperRow[]): string {
  return `${tableCells(rows)
    .map((r) => r.map(csvField).join(","))
    .join("\n")}\n`;
}
