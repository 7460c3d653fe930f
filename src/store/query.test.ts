import { describe, expect, it } from "vitest";
import { selectSql } from "./query.js";

describe("selectSql", () => {
  it("reads a whole table in its key order when nothing narrows it", () => {
    expect(selectSql("designs", "*", {})).toEqual([
      "SELECT * FROM designs  ORDER BY step, slot, seq",
      [],
    ]);
  });

  it("narrows by environment, then by step, from and before, in that order of parameters", () => {
    expect(
      selectSql("episodes", "step, idx", { envId: "d0-1", step: 2, fromStep: 1, beforeStep: 3 }),
    ).toEqual([
      "SELECT step, idx FROM episodes WHERE env_id = ? AND step = ? AND step >= ? AND step < ? ORDER BY step, env_id, idx",
      ["d0-1", 2, 1, 3],
    ]);
  });

  it("ranges environments over their creation step, designed before library ones on a step", () => {
    expect(selectSql("environments", "id", { source: "library", fromStep: 4 })).toEqual([
      "SELECT id FROM environments WHERE source = ? AND created_step >= ? ORDER BY created_step, source, slot, id",
      ["library", 4],
    ]);
  });
});
