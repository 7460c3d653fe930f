// The ACEBench overall column: computed from the N, S and A cells other sources stored, with the
// reference's weights, and "not available" naming what is missing.
import { describe, expect, it } from "vitest";
import { aceOverallSource, recordingSource, type CellStore } from "./acebench-source.js";
import type { SourceContext } from "./sources.js";

const context = {} as SourceContext;

describe("aceOverallSource", () => {
  it("weights N, S and A as upstream's generate_result_csv, unrounded", async () => {
    const store: CellStore = new Map([
      ["ACEBench-N", { status: "ok", value: 0.8 }],
      ["ACEBench-S", { status: "ok", value: 0.5 }],
      ["ACEBench-A", { status: "ok", value: 0.3 }],
    ]);
    const r = await aceOverallSource(store).run(context);
    expect(r.cells.ACEBench).toEqual({
      status: "ok",
      value: 0.8 * 0.578 + 0.5 * 0.2676 + 0.3 * 0.1545,
    });
    expect(r.details).toEqual({ normal: 0.8, special: 0.5, agent: 0.3 });
  });

  it("says which parts are missing", async () => {
    const store: CellStore = new Map([
      ["ACEBench-N", { status: "ok", value: 0.8 }],
      ["ACEBench-A", { status: "not available", reason: "no user model" }],
    ]);
    const r = await aceOverallSource(store).run(context);
    expect(r.cells.ACEBench).toEqual({
      status: "not available",
      reason: "needs ACEBench-S, ACEBench-A",
    });
  });

  it("takes the cells a wrapped source produced", async () => {
    const store: CellStore = new Map();
    const inner = {
      name: "x",
      columns: ["ACEBench-A"],
      run: async () => ({
        cells: { "ACEBench-A": { status: "ok" as const, value: 0.25 } },
        settings: {},
        details: {},
        interrupted: false,
      }),
    };
    await recordingSource(inner, store).run(context);
    expect(store.get("ACEBench-A")).toEqual({ status: "ok", value: 0.25 });
  });
});
