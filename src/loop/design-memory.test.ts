import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { memoryWindow } from "../memory/index.js";
import { EMPTY_STATS, RunStore, type EnvironmentRow } from "../store/index.js";
import { dedupeArchive, memoryRecords } from "./design-memory.js";
import type { LibraryProgram } from "./library.js";

const tmp = tempDirsAfterEach("spade-design-memory-");
const open = (): RunStore => RunStore.open(tmp(), "create");

const meta = { name: "m", skill: "Logic", description: "d", maxTurns: 3, tools: [] };
const design = (step: number, slot: number, winRate: number | null): EnvironmentRow => ({
  id: `d${step}-${slot}`,
  name: `n${step}-${slot}`,
  skill: "Logic",
  description: `find the code ${step} ${slot}`,
  code: `class Environment { reset() { return ${step * 10 + slot}; } }`,
  meta,
  source: "designer",
  createdStep: step,
  slot,
  docId: null,
  hint: null,
  stats: { ...EMPTY_STATS, winRate, regret: winRate === null ? null : slot / 10 },
});
const library: LibraryProgram[] = [
  { name: "vault", source: "class Environment {}", meta: { ...meta, name: "vault" } },
  { name: "pebble", source: "class Environment {}", meta: { ...meta, name: "pebble" } },
];
const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id);

describe("memoryRecords", () => {
  it("reads the last windowSize measured designs before the step, after the library seeds", () => {
    const store = open();
    store.transaction(() => {
      for (const step of [0, 4, 8])
        for (const slot of [0, 1, 2])
          store.insertEnvironment(design(step, slot, slot === 2 ? null : 0.5));
    });
    expect(ids(memoryRecords(store, library, 8, 3))).toEqual([
      "lib-vault",
      "lib-pebble",
      "d0-1",
      "d4-0",
      "d4-1",
    ]);
    expect(memoryRecords(store, library, 5, 10).slice(2)).toEqual(
      [design(0, 0, 0.5), design(0, 1, 0.5), design(4, 0, 0.5), design(4, 1, 0.5)].map((e) => ({
        id: e.id,
        name: e.name,
        skill: e.skill,
        description: e.description,
        code: e.code,
        winRate: 0.5,
        regret: e.stats.regret,
        createdStep: e.createdStep,
      })),
    );
    store.close();
  });

  it("the memory's window over them is the window over every measured design", () => {
    const store = open();
    store.transaction(() => {
      for (let step = 0; step < 20; step += 4)
        for (const slot of [0, 1]) store.insertEnvironment(design(step, slot, 0.25 + slot / 4));
    });
    const every = memoryRecords(store, library, 20, 1000);
    for (const windowSize of [1, 3, 10, 11, 12, 13])
      expect(ids(memoryWindow(memoryRecords(store, library, 20, windowSize), windowSize))).toEqual(
        ids(memoryWindow(every, windowSize)),
      );
    expect(ids(memoryWindow(memoryRecords(store, library, 20, 11), 11))).toEqual([
      "lib-pebble",
      "d0-0",
      "d0-1",
      "d4-0",
      "d4-1",
      "d8-0",
      "d8-1",
      "d12-0",
      "d12-1",
      "d16-0",
      "d16-1",
    ]);
    store.close();
  });

  it("lays the stats of steps scored but not committed over the stored ones (--max-off-policy)", () => {
    const store = open();
    store.transaction(() => {
      for (const step of [0, 4, 8])
        for (const slot of [0, 1]) store.insertEnvironment(design(step, slot, 0.5));
      store.insertEnvironment(design(8, 2, null));
    });
    // Pending: d8-2 measured for the first time, d8-1 no longer measured, d4-0's win rate moved.
    const pending = new Map([
      ["d8-2", { ...EMPTY_STATS, winRate: 0.75, regret: 0.25 }],
      ["d8-1", { ...EMPTY_STATS, winRate: null }],
      ["d4-0", { ...EMPTY_STATS, winRate: 0.125, regret: 0 }],
    ]);
    const records = memoryRecords(store, library, 9, 3, pending);
    expect(records.slice(2).map((r) => [r.id, r.winRate, r.regret])).toEqual([
      ["d4-1", 0.5, 0.1],
      ["d8-0", 0.5, 0],
      ["d8-2", 0.75, 0.25],
    ]);
    // The same as laying the pending stats over every stored environment and taking the window.
    const every = store
      .environments({ source: "designer" })
      .map((e) => ({ ...e, stats: pending.get(e.id) ?? e.stats }))
      .filter((e) => e.stats.winRate !== null);
    for (const windowSize of [1, 2, 3, 4, 5, 6])
      expect(ids(memoryRecords(store, library, 9, windowSize, pending).slice(2))).toEqual(
        ids(every.slice(-windowSize)),
      );
    store.close();
  });
});

describe("dedupeArchive", () => {
  it("holds every design made before the step, reading only the new ones each call", () => {
    const store = open();
    store.transaction(() => {
      store.insertEnvironment(design(0, 1, 0.5));
      store.insertEnvironment(design(0, 0, null));
    });
    const first = dedupeArchive(store, 4);
    expect(ids(first.programs())).toEqual(["d0-0", "d0-1"]);
    store.transaction(() => {
      store.insertEnvironment(design(4, 0, null));
      store.insertEnvironment(design(8, 0, null));
    });
    const second = dedupeArchive(store, 8);
    expect(ids(second.programs())).toEqual(["d0-0", "d0-1", "d4-0"]);
    // Made once: the entries of the earlier call are the same objects; the earlier archive does not grow.
    expect(second.programs()[0]).toBe(first.programs()[0]);
    expect(first.size).toBe(2);
    expect(ids(dedupeArchive(store, 4).programs())).toEqual(["d0-0", "d0-1"]);
    expect(ids(dedupeArchive(store, 0).programs())).toEqual([]);
    store.close();
  });
});
