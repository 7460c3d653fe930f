import { describe, expect, it } from "vitest";
import { isSpadeError } from "../../errors.js";
import { dataRoot } from "../data.js";
import { loadSuite } from "./load.js";

// vitest.config.ts points SPADE_DATA_DIR at ../shared/benchmarks.
const dataDir = dataRoot({ env: process.env });

describe("loadSuite", () => {
  it("loads each suite with its item count and honours limit", async () => {
    expect((await loadSuite("math500", { dataDir })).length).toBe(500);
    expect((await loadSuite("bbh", { dataDir })).length).toBe(6511);
    expect((await loadSuite("humaneval", { dataDir })).length).toBe(164);
    const three = await loadSuite("gsm8k", { dataDir, limit: 3 });
    expect(three.map((i) => i.id)).toEqual(["gsm8k/0", "gsm8k/1", "gsm8k/2"]);
    expect((await loadSuite("bbh", { dataDir, limit: 2 })).map((i) => i.id)).toEqual([
      "bbh/boolean_expressions/0",
      "bbh/boolean_expressions/1",
    ]);
  });

  it("throws E_NOT_FOUND for an unknown suite and E_IO for a missing data folder", async () => {
    const unknown = await loadSuite("mmlu", { dataDir }).catch((e: unknown) => e);
    expect(isSpadeError(unknown, "E_NOT_FOUND")).toBe(true);
    const missing = await loadSuite("gsm8k", { dataDir: "/nonexistent/benchmarks" }).catch(
      (e: unknown) => e,
    );
    expect(isSpadeError(missing, "E_IO")).toBe(true);
    expect((missing as Error).message).toContain("spade data list");
  });
});
