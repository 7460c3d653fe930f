/**
 * The skill schedule against the reference (`spade/slime/spade_rollout.py` `select_active_skills`,
 * `orchestrator.py` `generate_games_async`: slot i gets `skills[i % len(skills)]`).
 */
import { describe, expect, it } from "vitest";
import { buildConfig } from "../config/index.js";
import { activeSkills, slotSkill } from "./schedule.js";

const GAMES = buildConfig([]);
const TOOLS = buildConfig([{ mode: "tool-use" }]);

describe("activeSkills", () => {
  it.each([
    // step (R = 4) -> window of 3 of the 6 game skills
    [0, ["Mathematical Reasoning", "Logical Deduction", "Spatial Reasoning"]],
    [3, ["Mathematical Reasoning", "Logical Deduction", "Spatial Reasoning"]],
    [4, ["Pattern Recognition", "Optimization", "Causal Inference"]],
    [8, ["Mathematical Reasoning", "Logical Deduction", "Spatial Reasoning"]],
  ])("games, step %i: %j", (step, expected) => {
    expect(activeSkills(GAMES.skills, step, GAMES.regenerateEvery, GAMES.skillsPerRegen)).toEqual(
      expected,
    );
  });

  it("wraps a window that does not divide the skills (5 skills, k = 2: epochs start at 0, 2, 4, 1)", () => {
    const five = ["a", "b", "c", "d", "e"];
    expect([0, 1, 2, 3].map((epoch) => activeSkills(five, epoch, 1, 2))).toEqual([
      ["a", "b"],
      ["c", "d"],
      ["e", "a"],
      ["b", "c"],
    ]);
    expect(activeSkills(five, 7, 1, 5)).toEqual(five);
    expect(activeSkills(five, 7, 1, undefined)).toEqual(five);
    expect(() => activeSkills([], 0, 1, 1)).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
  });

  it("24 game slots give 8 designs to each of 3 skills; 24 tool-use slots give 4 to each of 6", () => {
    const count = (config: typeof GAMES, step: number) => {
      const counts: Record<string, number> = {};
      for (let slot = 0; slot < 24; slot++) {
        const skill = slotSkill(
          config.skills,
          step,
          slot,
          config.regenerateEvery,
          config.skillsPerRegen,
        );
        counts[skill] = (counts[skill] ?? 0) + 1;
      }
      return counts;
    };
    expect(count(GAMES, 0)).toEqual({
      "Mathematical Reasoning": 8,
      "Logical Deduction": 8,
      "Spatial Reasoning": 8,
    });
    expect(count(GAMES, 4)).toEqual({
      "Pattern Recognition": 8,
      Optimization: 8,
      "Causal Inference": 8,
    });
    expect(Object.values(count(TOOLS, 0))).toEqual([4, 4, 4, 4, 4, 4]);
    expect(slotSkill(GAMES.skills, 4, 1, 4, 3)).toBe("Optimization");
  });
});
