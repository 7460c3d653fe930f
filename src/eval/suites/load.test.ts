import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isSpadeError } from "../../errors.js";
import { benchmarksRoot } from "./data.js";
import { loadSuite } from "./load.js";

const dataDir = "../shared/benchmarks";

describe("loadSuite", () => {
  it("loads each suite with its item count and honours limit", async () => {
    expect((await loadSuite("math500", { dataDir })).length).toBe(500);
    expect((await loadSuite("bbh", { dataDir })).length).toBe(6511);
    expect((await loadSuite("humaneval", { dataDir })).length).toBe(164);
    const three = await loadSuite("gsm8k", { dataDir, limit: 3 });
    expect(three.map((i) => i.id)).toEqual(["gsm8k/0", "gsm8k/1", "gsm8k/2"]);
    expect((await loadSuite("bbh", { dataDir, limit: 2 })).map((i) => i.id)).toEqual(["bbh/boolean_expressions/0", "bbh/boolean_expressions/1"]);
  });

  it("throws E_NOT_FOUND for an unknown suite and E_IO for a missing data folder", async () => {
    const unknown = await loadSuite("mmlu", { dataDir }).catch((e: unknown) => e);
    expect(isSpadeError(unknown, "E_NOT_FOUND")).toBe(true);
    const missing = await loadSuite("gsm8k", { dataDir: "/nonexistent/benchmarks" }).catch((e: unknown) => e);
    expect(isSpadeError(missing, "E_IO")).toBe(true);
    expect((missing as Error).message).toContain("SPADE_BENCHMARKS");
  });
});

describe("benchmarksRoot", () => {
  it("prefers the flag, then SPADE_BENCHMARKS, then ../shared/benchmarks, from cwd", () => {
    expect(benchmarksRoot({ flag: "data", env: { SPADE_BENCHMARKS: "/env" }, cwd: "/repo" })).toBe("/repo/data");
    expect(benchmarksRoot({ env: { SPADE_BENCHMARKS: "/env" }, cwd: "/repo" })).toBe("/env");
    expect(benchmarksRoot({ env: {}, cwd: "/srv/project/repo" })).toBe(resolve("/srv/project/shared/benchmarks"));
  });
});
