/**
 * `spade eval acebench --category normal+special` through the built command: the oracle policy
 * replies with each entry's ground truth, and the scores are upstream's scores of it.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { benchmarksDir } from "../../src/eval/acebench/testing/bench-dir.js";
import { skipWithout } from "../missing.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const DATA = benchmarksDir();
const NORMAL_ATOM_BOOL = join(
  DATA,
  "acebench",
  "data_all",
  "data_en",
  "data_normal_atom_bool.json",
);
const HAVE_DATA = !skipWithout(
  existsSync(NORMAL_ATOM_BOOL) ? null : `ACEBench data not found (${NORMAL_ATOM_BOOL})`,
);
const dir = fileTempDir("spade-acebench-ns-e2e-");

describe.skipIf(!HAVE_DATA)("spade eval acebench --category normal+special", () => {
  it("scores the ground truth of all 973 entries as upstream's eval_main.py does", {
    timeout: 300_000,
  }, async () => {
    const out = join(dir, "oracle");
    const r = await spade([
      "eval",
      "acebench",
      "--policy",
      "oracle",
      "--category",
      "normal+special",
      "--data",
      DATA,
      "--json",
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.items).toBe(973);
    expect(summary.categories.map((c: any) => [c.category, c.accuracy])).toEqual([
      ["normal_single_turn_single_function", 0.92],
      ["normal_single_turn_parallel_function", 0.86],
      ["normal_multi_turn_user_adjust", 0.76],
      ["normal_multi_turn_user_switch", 0.74],
      ["normal_similar_api", 0.96],
      ["normal_preference", 0.98],
      ["normal_atom_bool", 1],
      ["normal_atom_enum", 1],
      ["normal_atom_number", 1],
      ["normal_atom_list", 1],
      ["normal_atom_object_deep", 0.66],
      ["normal_atom_object_short", 1],
      ["special_incomplete", 1],
      ["special_error_param", 1],
      ["special_irrelevant", 1],
    ]);
    expect(summary.normal).toBeCloseTo(
      (0.92 + 0.86 + 0.76 + 0.74 + 0.96 + 0.98 + 4 + 0.66 + 1) / 12,
      12,
    );
    expect(summary.special).toBe(1);
    expect(readdirSync(join(out, "items")).length).toBe(973);
  });

  it("runs one category, and refuses a language other than English", {
    timeout: 120_000,
  }, async () => {
    const one = await spade([
      "eval",
      "acebench",
      "--policy",
      "oracle",
      "--category",
      "special_irrelevant",
      "--limit",
      "3",
      "--data",
      DATA,
      "--json",
      "--out",
      join(dir, "one"),
    ]);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ items: 3, special: 1, normal: null });
    const zh = await spade([
      "eval",
      "acebench",
      "--policy",
      "oracle",
      "--category",
      "normal",
      "--lang",
      "zh",
      "--data",
      DATA,
      "--out",
      join(dir, "zh"),
    ]);
    expect(zh.code).toBe(2);
    expect(zh.stderr).toBe(
      "spade: E_CONFIG: the normal and special categories are scored in English only (got --lang zh) (drop --lang or pass --lang en)\n",
    );
  });
});
