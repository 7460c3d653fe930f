// Naming served environments and resolving what `spade serve` was given.
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/cleanup.js";
import { resolveProgram } from "../envs/index.js";
import { EMPTY_STATS, RunStore } from "../store/index.js";
import { catalogSources, loadCatalog, slug, uniqueNames } from "./catalog.js";
import { codeOf } from "../../test/assert.js";

describe("names", () => {
  it("slug keeps lowercase kebab and drops the rest", () => {
    expect([
      slug("Vault Cracker!"),
      slug("--a__b--"),
      slug("¿?"),
      slug("x".repeat(80)).length,
    ]).toEqual(["vault-cracker", "a-b", "env", 64]);
  });

  it("uniqueNames numbers repeats and never takes the server's own /health", () => {
    expect(uniqueNames(["maze", "maze", "Maze", "health"])).toEqual([
      "maze",
      "maze-2",
      "maze-3",
      "health-2",
    ]);
  });
});

describe("catalogSources", () => {
  it("resolves library names", () => {
    const [s] = catalogSources(["vault-cracker"]);
    expect([s!.name, s!.origin, s!.stats]).toEqual(["vault-cracker", "library", null]);
  });

  it("an unknown reference is E_NOT_FOUND", () => {
    expect(codeOf(() => catalogSources(["no-such-env-anywhere"]))).toBe("E_NOT_FOUND");
  });
});

describe("run folders", () => {
  it("serve the run's designed environments that pass --min-regret and --skills, best regret first", async () => {
    await withTempDir("spade-catalog-", async (dir) => {
      const store = RunStore.open(dir, "create");
      const source = resolveProgram("vault-cracker").source;
      const meta = {
        name: "vault-cracker",
        skill: "Logical Deduction",
        description: "d",
        maxTurns: 10,
        tools: [],
      };
      const rows: Array<[string, string, number | null]> = [
        ["d0-0", "Logical Deduction", 0.2],
        ["d0-1", "Logical Deduction", 0.6],
        ["d0-2", "Memory Recall", 0.9],
        ["d0-3", "Logical Deduction", null],
      ];
      for (const [id, skill, regret] of rows) {
        store.insertEnvironment({
          id,
          name: "vault-cracker",
          skill,
          description: "d",
          code: source,
          meta,
          source: "designer",
          createdStep: 0,
          slot: 0,
          docId: null,
          hint: null,
          stats: EMPTY_STATS,
        });
        store.updateStats(id, { ...EMPTY_STATS, regret, plays: 8 });
      }
      store.close();
      const sources = catalogSources([dir], { minRegret: 0.1, skills: ["logical deduction"] });
      expect(sources.map((s) => [s.stats?.envId, s.stats?.regret, s.origin])).toEqual([
        ["d0-1", 0.6, "run"],
        ["d0-0", 0.2, "run"],
      ]);
      expect((await loadCatalog(sources)).map((e) => e.name)).toEqual([
        "vault-cracker",
        "vault-cracker-2",
      ]);
      expect(catalogSources([dir]).length).toBe(4);
      expect(codeOf(() => catalogSources([dir], { minRegret: 2 }))).toBe("E_CONFIG");
    });
  });
});
