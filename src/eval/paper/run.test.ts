import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../../test/cleanup.js";
import { isSpadeError, SpadeError } from "../../errors.js";
import { readPaperRow, runPaper } from "./run.js";
import { unavailableSource, unsupportedSource, type ColumnSource } from "./sources.js";

const tempDir = tempDirsAfterEach("paper-");

const context = (signal = new AbortController().signal) => ({
  dataDir: "/nowhere",
  model: "m",
  resume: false,
  concurrency: 1,
  signal,
});

/** TEST DOUBLE: a source with fixed values. */
const fixed = (name: string, values: Record<string, number>): ColumnSource => ({
  name,
  columns: Object.keys(values),
  run: async () => ({
    cells: Object.fromEntries(
      Object.entries(values).map(([c, v]) => [c, { status: "ok" as const, value: v }]),
    ),
    settings: { temperature: 0.6 },
    details: { n: 1 },
    interrupted: false,
  }),
});

describe("runPaper", () => {
  it("fills every column from its source and writes results.json, table.md, table.csv", async () => {
    const out = tempDir();
    const failing: ColumnSource = {
      name: "boom",
      columns: ["RG:Logic"],
      run: async () => {
        throw new SpadeError("E_WORKER", "worker died");
      },
    };
    const missingData: ColumnSource = {
      name: "nodata",
      columns: ["RG:Cognition"],
      run: async () => {
        throw new SpadeError("E_IO", "cannot read x");
      },
    };
    const run = await runPaper({
      setting: "games",
      model: "m",
      outDir: out,
      context: context(),
      sources: [
        unavailableSource("aime", ["AIME-25", "AIME-26"], "no data"),
        unsupportedSource("x", ["GPQA-Diamond", "LiveCodeBench"], "later"),
        fixed("rg", { "RG:Math": 0.5, "RG:Algorithmic": 0.25 }),
        missingData,
        failing,
      ],
    });
    expect(run.interrupted).toBe(false);
    expect(
      Object.values(run.row.cells).map((c) => (c.status === "ok" ? c.value : c.status)),
    ).toEqual([
      "not available",
      "not available",
      "not supported yet",
      "not supported yet",
      0.5,
      0.25,
      "not available",
      "failed",
    ]);
    expect(run.row.cells["RG:Logic"]).toEqual({
      status: "failed",
      reason: "E_WORKER: worker died",
    });
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(results.sources.find((s: { name: string }) => s.name === "rg")).toEqual({
      name: "rg",
      columns: ["RG:Math", "RG:Algorithmic"],
      settings: { temperature: 0.6 },
      details: { n: 1 },
      interrupted: false,
    });
    expect(readFileSync(join(out, "table.csv"), "utf8").split("\n")[1]).toBe(
      "m,not available,not available,not supported yet,not supported yet,50.0,25.0,not available,failed",
    );
    expect(await readPaperRow(out)).toEqual(run.row);
  });

  it("stops at a cancelled source and marks the columns not run", async () => {
    const out = tempDir();
    const controller = new AbortController();
    const cancelled: ColumnSource = {
      name: "rg",
      columns: ["RG:Math", "RG:Algorithmic", "RG:Cognition", "RG:Logic"],
      run: async () => {
        controller.abort();
        throw new SpadeError("E_CANCELLED", "stop");
      },
    };
    const never: ColumnSource = {
      name: "later",
      columns: ["AIME-25", "AIME-26", "GPQA-Diamond", "LiveCodeBench"],
      run: async () => {
        throw new Error("must not run");
      },
    };
    const run = await runPaper({
      setting: "games",
      model: "m",
      outDir: out,
      context: context(controller.signal),
      sources: [cancelled, never],
    });
    expect(run.interrupted).toBe(true);
    expect(run.row.cells["RG:Math"]).toEqual({
      status: "not available",
      reason: "interrupted before this column ran",
    });
    expect(run.row.cells["AIME-25"]?.status).toBe("not available");
  });

  it("refuses a source list that leaves a column uncovered", async () => {
    const err = await runPaper({
      setting: "tool-use",
      model: "m",
      outDir: "/x",
      context: context(),
      sources: [],
    }).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_CONFIG") && err.message).toMatch(
      /^no source for column\(s\) BFCL-v4, Tau2-Retail/,
    );
  });

  it("readPaperRow says E_IO for a folder without results", async () => {
    const dir = tempDir();
    expect(isSpadeError(await readPaperRow(dir).catch((e: unknown) => e), "E_IO")).toBe(true);
    writeFileSync(
      join(dir, "results.json"),
      JSON.stringify({ setting: "chess", model: "m", cells: {} }),
    );
    const err = await readPaperRow(dir).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_IO") && err.message).toMatch(/is not a paper results file/);
  });
});
