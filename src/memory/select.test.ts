import { describe, expect, it } from "vitest";
import { mulberry32 } from "../random/index.js";
import {
  librarySeedRecords,
  memoryWindow,
  selectMemory,
  withLibrarySeeds,
  type EnvRecord,
} from "./index.js";
import { codeOf } from "../../test/assert.js";

function rec(
  id: string,
  skill: string,
  winRate: number,
  regret: number,
  createdStep = 0,
): EnvRecord {
  return {
    id,
    name: id,
    skill,
    description: `${id} description`,
    code: `class Environment {} // ${id}`,
    winRate,
    regret,
    createdStep,
  };
}

/** Test double: a scripted random source that returns the given values in turn. */
function scripted(...values: number[]): () => number {
  let i = 0;
  return () => {
    if (i >= values.length) throw new Error("scripted random source ran out of values");
    return values[i++] as number;
  };
}

const ids = (records: readonly EnvRecord[]) => records.map((r) => r.id);

describe("selectMemory: references", () => {
  it("keeps same-skill environments with win rate in [0.15, 0.85], edges included", () => {
    // id: [skill, win rate, regret]
    const table: Record<string, [string, number, number]> = {
      "lo-edge": ["Logic", 0.15, 0.3],
      "just-below": ["Logic", 0.149, 0.9],
      "hi-edge": ["Logic", 0.85, 0.2],
      "just-above": ["Logic", 0.851, 0.9],
      "other-skill": ["Math", 0.5, 0.9],
    };
    const records = Object.entries(table).map(([id, [skill, winRate, regret]]) =>
      rec(id, skill, winRate, regret),
    );
    const { references } = selectMemory(records, "Logic", scripted(0, 0));
    expect(ids(references)).toEqual(["lo-edge", "hi-edge"]);
  });

  it("draws only from the top 10 by regret", () => {
    // r01 has regret 0.12 (best) ... r12 has 0.01 (worst); all calibrated
    const records = Array.from({ length: 12 }, (_, k) =>
      rec(`r${String(k + 1).padStart(2, "0")}`, "Logic", 0.5, (12 - k) / 100, k),
    );
    // rand 0 twice: the two best; 0.999 then 0.999: position 9 (10th best), then the best (swapped to 9)
    expect(ids(selectMemory(records, "Logic", scripted(0, 0)).references)).toEqual(["r01", "r02"]);
    expect(ids(selectMemory(records, "Logic", scripted(0.999, 0.999)).references)).toEqual([
      "r10",
      "r01",
    ]);
    const seen = new Set<string>();
    for (let a = 0; a < 20; a++)
      for (let b = 0; b < 20; b++) {
        for (const r of selectMemory(records, "Logic", scripted(a / 20, b / 20)).references)
          seen.add(r.id);
      }
    expect([...seen].sort()).toEqual([
      "r01",
      "r02",
      "r03",
      "r04",
      "r05",
      "r06",
      "r07",
      "r08",
      "r09",
      "r10",
    ]);
  });

  it("the pool is max(3 x references, topK): 4 references widen it to 12", () => {
    const records = Array.from({ length: 13 }, (_, k) =>
      rec(`r${k + 1}`, "Logic", 0.5, (13 - k) / 100, k),
    );
    const { references } = selectMemory(records, "Logic", scripted(0.999, 0, 0, 0), {
      references: 4,
    });
    expect(ids(references)).toEqual(["r12", "r2", "r3", "r4"]);
  });

  it("breaks regret ties by age (older first)", () => {
    const records = [rec("new", "Logic", 0.5, 0.2, 9), rec("old", "Logic", 0.5, 0.2, 1)];
    expect(
      ids(selectMemory(records, "Logic", scripted(0, 0), { references: 1 }).references),
    ).toEqual(["old"]);
  });

  it("returns fewer references when fewer qualify, and none for an unknown skill", () => {
    const records = [rec("a", "Logic", 0.5, 0.1), rec("b", "Logic", 0.95, 0.5)];
    expect(ids(selectMemory(records, "Logic", scripted(0, 0)).references)).toEqual(["a"]);
    expect(selectMemory(records, "Optimization", scripted())).toEqual({
      references: [],
      avoid: null,
    });
    expect(selectMemory([], "Logic", scripted())).toEqual({ references: [], avoid: null });
  });
});

describe("selectMemory: the environment to avoid", () => {
  /** A Logic environment (the skill these tests design for). */
  const logic = (id: string, winRate: number, regret = 0) => rec(id, "Logic", winRate, regret);

  it("picks a same-skill environment with win rate > 0.9 (too easy) or < 0.1 (too hard), edges excluded", () => {
    const records = [
      logic("easy", 0.95),
      logic("hard", 0.05),
      logic("edge-hi", 0.9),
      logic("edge-lo", 0.1),
      rec("math-easy", "Math", 1, 0),
    ];
    // no references qualify (0.9 and 0.1 are outside [0.15, 0.85]), so the first draw picks the avoid example
    expect(selectMemory(records, "Logic", scripted(0)).avoid).toEqual({
      record: records[0],
      reason: "too easy",
    });
    expect(selectMemory(records, "Logic", scripted(0.5)).avoid).toEqual({
      record: records[1],
      reason: "too hard",
    });
    expect(selectMemory(records, "Math", scripted(0)).avoid?.reason).toBe("too easy");
  });

  it("draws the references first, then the avoid example", () => {
    const records = [
      logic("ref1", 0.5, 0.3),
      logic("ref2", 0.4, 0.2),
      logic("bad1", 0),
      logic("bad2", 1),
    ];
    const selection = selectMemory(records, "Logic", scripted(0, 0, 0.75));
    expect(ids(selection.references)).toEqual(["ref1", "ref2"]);
    expect(selection.avoid).toEqual({ record: records[3], reason: "too easy" });
  });
});

describe("memoryWindow", () => {
  it("keeps the last 200 environments of all skills, ordered by createdStep", () => {
    const old = Array.from({ length: 5 }, (_, k) => rec(`old${k}`, "Logic", 0.5, 0.9, k));
    const recent = Array.from({ length: 200 }, (_, k) =>
      rec(`new${k}`, k % 2 === 0 ? "Logic" : "Math", 0.5, 0.1, 10 + k),
    );
    const window = memoryWindow([...recent, ...old]);
    expect(window.length).toBe(200);
    expect(window[0]?.id).toBe("new0");
    // the high-regret old ones fell out of the window, so they are never references
    const refs = selectMemory([...recent, ...old], "Logic", scripted(0, 0)).references;
    expect(ids(refs)).toEqual(["new0", "new2"]);
  });

  it("honours windowSize and keeps input order on equal steps", () => {
    const records = [
      rec("a", "L", 0.5, 0, 3),
      rec("b", "L", 0.5, 0, 1),
      rec("c", "L", 0.5, 0, 3),
      rec("d", "L", 0.5, 0, 2),
    ];
    expect(ids(memoryWindow(records, 3))).toEqual(["d", "a", "c"]);
    expect(memoryWindow(records, 0)).toEqual([]);
  });
});

describe("library seeds", () => {
  const library = [
    {
      name: "vault-cracker",
      skill: "Logical Deduction",
      description: "Find a 4-digit code.",
      code: "class Environment {}",
    },
    {
      name: "pebble-duel",
      skill: "Strategic Planning",
      description: "Take pebbles.",
      code: "class Environment {}",
      winRate: 0.95,
    },
  ];

  it("become the oldest records, with neutral stats unless measured", () => {
    expect(librarySeedRecords(library)).toEqual([
      {
        id: "lib-vault-cracker",
        name: "vault-cracker",
        skill: "Logical Deduction",
        description: "Find a 4-digit code.",
        code: "class Environment {}",
        winRate: 0.5,
        regret: 0,
        createdStep: -1,
      },
      {
        id: "lib-pebble-duel",
        name: "pebble-duel",
        skill: "Strategic Planning",
        description: "Take pebbles.",
        code: "class Environment {}",
        winRate: 0.95,
        regret: 0,
        createdStep: -1,
      },
    ]);
  });

  it("serve as references before any design exists, and age out of the window", () => {
    const seeds = librarySeedRecords(library);
    const first = selectMemory(withLibrarySeeds([], seeds), "Logical Deduction", scripted(0));
    expect(ids(first.references)).toEqual(["lib-vault-cracker"]);
    expect(
      selectMemory(withLibrarySeeds([], seeds), "Strategic Planning", scripted(0)).avoid?.record.id,
    ).toBe("lib-pebble-duel");

    const designs = Array.from({ length: 200 }, (_, k) => rec(`d${k}`, "Math", 0.5, 0.1, k));
    const later = selectMemory(withLibrarySeeds(designs, seeds), "Logical Deduction", scripted());
    expect(later).toEqual({ references: [], avoid: null });
  });

  it("rejects defaults outside their range", () => {
    expect(codeOf(() => librarySeedRecords(library, { defaultWinRate: 1.5 }))).toBe("E_CONFIG");
  });
});

describe("determinism and input checks", () => {
  it("the same seeded PRNG gives the same selection", () => {
    const records = Array.from({ length: 30 }, (_, k) =>
      rec(`r${k}`, "Logic", (k % 11) / 10, ((k * 7) % 13) / 100, k),
    );
    const a = selectMemory(records, "Logic", mulberry32(42));
    const b = selectMemory(records, "Logic", mulberry32(42));
    expect(ids(a.references)).toEqual(ids(b.references));
    expect(a.avoid?.record.id).toBe(b.avoid?.record.id);
    expect(a.references.length).toBe(2);
  });

  it("rejects unusable stats, a bad random source and bad options", () => {
    expect(codeOf(() => selectMemory([rec("x", "L", 1.2, 0)], "L", scripted(0)))).toBe(
      "E_RL_INPUT",
    );
    expect(codeOf(() => selectMemory([rec("x", "L", 0.5, Number.NaN)], "L", scripted(0)))).toBe(
      "E_RL_INPUT",
    );
    expect(codeOf(() => selectMemory([rec("x", "L", 0.5, 0)], "L", scripted(1)))).toBe(
      "E_RL_INPUT",
    );
    expect(codeOf(() => selectMemory([], "L", scripted(), { windowSize: -1 }))).toBe("E_CONFIG");
    expect(codeOf(() => selectMemory([], "L", scripted(), { references: 1.5 }))).toBe("E_CONFIG");
  });
});
