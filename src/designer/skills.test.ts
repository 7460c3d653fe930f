import { describe, expect, it } from "vitest";
import { codeOf } from "../../test/assert.js";
import { libraryNames, resolveProgram } from "../envs/index.js";
import {
  ALL_SKILLS,
  GAME_SKILLS,
  getSkill,
  getTaskType,
  taskTypeForSlot,
  TASK_TYPE_ROTATION,
  TOOL_USE_SKILLS,
  TOOL_USE_TASK_TYPES,
  findSkill,
} from "./skills.js";
// The reference's skill and task-type names, in its order.
import reference from "./skills.reference.json";

describe("skills", () => {
  it("lists the reference's nine game skills and six tool-use skills", () => {
    expect(GAME_SKILLS.map((s) => s.name)).toEqual(reference.gameSkills);
    expect(TOOL_USE_SKILLS.map((s) => s.name)).toEqual(reference.toolUseSkills);
    expect(GAME_SKILLS.every((s) => s.kind === "game")).toBe(true);
    expect(TOOL_USE_SKILLS.every((s) => s.kind === "tool-use")).toBe(true);
    for (const s of ALL_SKILLS) {
      expect(s.description.length, s.name).toBeGreaterThan(40);
      expect(s.ideas.length, s.name).toBe(3);
    }
  });

  it("knows the skill of every library environment", () => {
    const unknown = libraryNames().filter((name) => {
      const skill = /skill:\s*"([^"]+)"/.exec(resolveProgram(name).source)?.[1] ?? "";
      return !findSkill(skill);
    });
    expect(unknown).toEqual([]);
  });

  it("getSkill throws E_CONFIG for an unknown skill", () => {
    expect(getSkill("Optimization").kind).toBe("game");
    expect(codeOf(() => getSkill("Juggling"))).toBe("E_CONFIG");
  });
});

describe("tool-use task types", () => {
  it("has the four types, each with an instruction", () => {
    expect(TOOL_USE_TASK_TYPES.map((t) => t.name)).toEqual(reference.toolUseTaskTypes);
    expect(getTaskType("irrelevant-request").description).toContain("decline_request");
    expect(() => getTaskType("chat" as never)).toThrow(/unknown tool-use task type/);
  });

  it("rotates them 3 : 2 : 1 : 1 over every 7 slots", () => {
    const counts: Record<string, number> = {};
    for (let i = 0; i < 70; i++) counts[taskTypeForSlot(i)] = (counts[taskTypeForSlot(i)] ?? 0) + 1;
    expect(counts).toEqual({
      execute: 30,
      "read-then-write": 20,
      "missing-parameter": 10,
      "irrelevant-request": 10,
    });
    expect(taskTypeForSlot(7)).toBe(TASK_TYPE_ROTATION[0]);
    expect(() => taskTypeForSlot(-1)).toThrow(/non-negative integer/);
    expect(() => taskTypeForSlot(1.5)).toThrow(/non-negative integer/);
  });
});
