import { describe, expect, it } from "vitest";
import { codeAndMessageOf } from "../../../test/assert.js";
import {
  difference,
  PAPER_COLUMNS,
  renderCsv,
  renderMarkdown,
  tableCells,
  type PaperRow,
} from "./table.js";

const cells = (setting: "games" | "tool-use", values: Record<string, number>): PaperRow["cells"] =>
  Object.fromEntries(
    PAPER_COLUMNS[setting].map((c) => [
      c,
      c in values
        ? { status: "ok", value: values[c] as number }
        : { status: "not supported yet", reason: "x" },
    ]),
  );

describe("paper tables", () => {
  it("keep the reference's column order (eval_offline/table_mapping.py)", () => {
    // No name holds a space, so each list reads exactly as one line.
    expect(PAPER_COLUMNS.games.join(" ")).toBe(
      "AIME-25 AIME-26 GPQA-Diamond LiveCodeBench RG:Math RG:Algorithmic RG:Cognition RG:Logic",
    );
    expect(PAPER_COLUMNS["tool-use"].join(" ")).toBe(
      "BFCL-v4 Tau2-Retail Tau2-Airline Tau2-Telecom ACEBench-N ACEBench-S ACEBench-A ACEBench",
    );
  });

  it("render one model as percentages with one decimal, and say why a cell is empty", () => {
    const row: PaperRow = {
      setting: "games",
      model: "m|1",
      cells: {
        ...cells("games", { "RG:Math": 0.4567, "RG:Logic": 1 }),
        "AIME-25": { status: "not available", reason: "no data" },
      },
    };
    expect(renderMarkdown([row])).toBe(
      "| model | AIME-25 | AIME-26 | GPQA-Diamond | LiveCodeBench | RG:Math | RG:Algorithmic | RG:Cognition | RG:Logic |\n" +
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n" +
        "| m\\|1 | not available | not supported yet | not supported yet | not supported yet | 45.7 | not supported yet | not supported yet | 100.0 |\n",
    );
  });

  it("put models side by side with the difference to the first in points", () => {
    const base: PaperRow = {
      setting: "tool-use",
      model: "base",
      cells: cells("tool-use", { "ACEBench-A": 0.25, "BFCL-v4": 0.5 }),
    };
    const spade: PaperRow = {
      setting: "tool-use",
      model: "spade",
      cells: cells("tool-use", { "ACEBench-A": 0.3, "BFCL-v4": 0.45 }),
    };
    const t = tableCells([base, spade]);
    expect(t.map((r) => [r[0], r[1], r[7]])).toEqual([
      ["model", "BFCL-v4", "ACEBench-A"],
      ["base", "50.0", "25.0"],
      ["spade", "45.0", "30.0"],
      ["spade - base", "-5.0", "+5.0"],
    ]);
    expect(renderCsv([base, spade]).split("\n")[3]).toBe("spade - base,-5.0,,,,,,+5.0,");
  });

  it("leave the difference empty when either cell is missing, and refuse mixed settings", () => {
    expect(difference({ status: "ok", value: 0.5 }, { status: "failed", reason: "x" })).toBe("");
    expect(difference({ status: "ok", value: 0.5 }, { status: "ok", value: 0.5 })).toBe("+0.0");
    const g: PaperRow = { setting: "games", model: "a", cells: {} };
    const t: PaperRow = { setting: "tool-use", model: "b", cells: {} };
    expect(codeAndMessageOf(() => tableCells([g, t]))).toEqual({
      code: "E_CONFIG",
      message: expect.stringMatching(/cannot compare a games table with a tool-use table/),
    });
  });

  it("quote CSV fields that need it", () => {
    const row: PaperRow = { setting: "games", model: 'a,"b"', cells: cells("games", {}) };
    expect(renderCsv([row]).split("\n")[1]?.startsWith('"a,""b""",')).toBe(true);
  });
});
