import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { RunStore, STORE_FILE } from "./run-store.js";
import { EMPTY_STATS, type EnvironmentRow, type EpisodeRow } from "./types.js";

const tmp = tempDirsAfterEach("spade-store-");

const env: EnvironmentRow = {
  id: "d0-1",
  name: "x",
  skill: "Logical Deduction",
  description: "d",
  code: "class Environment {}",
  meta: { name: "x", skill: "Logical Deduction", description: "d", maxTurns: 3, tools: [] },
  source: "designer",
  createdStep: 0,
  slot: 1,
  docId: "doc-7",
  hint: null,
  stats: EMPTY_STATS,
};
const episode = (idx: number, hinted: boolean): EpisodeRow => ({
  step: 0,
  envId: "d0-1",
  idx,
  seed: 10 + idx,
  hinted,
  return: hinted ? 1 : 0,
  success: hinted,
  turns: 2,
  failure: null,
  failureCode: null,
  rewards: [0, hinted ? 1 : 0],
  transcript: { firstObservation: "o", steps: [] },
  trace: null,
});

describe("RunStore", () => {
  it("round-trips environments, episodes, designs, samples, state and steps", () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.transaction(() => {
      store.insertEnvironment(env);
      store.insertEpisode(episode(1, true));
      store.insertEpisode(episode(0, false));
      store.insertDesign({
        step: 0,
        slot: 1,
        seq: 0,
        attempt: 0,
        repairTurn: 0,
        skill: "Logical Deduction",
        docId: "doc-7",
        prompt: [{ role: "user", content: "p" }],
        completion: "c",
        program: "p",
        outcome: "valid",
        report: null,
        duplicateOf: null,
        memoryRefs: [],
        trainable: true,
        tokens: null,
        envId: "d0-1",
      });
      store.insertSample({ step: 0, role: "agent", ref: "d0-1/0", reward: 0, advantage: -1 });
      store.setState("sampler", { seed: 3, next: 5 });
      store.beginStep(0);
    });
    store.updateStats("d0-1", { ...EMPTY_STATS, plays: 1, winRate: 0, regret: 1 });
    store.completeStep(0, { step: 0, regret: 1 });
    store.close();

    const again = RunStore.open(dir, "resume");
    expect(again.environment("d0-1")?.stats).toEqual({
      ...EMPTY_STATS,
      plays: 1,
      winRate: 0,
      regret: 1,
    });
    expect(again.episodes({ envId: "d0-1" }).map((e) => [e.idx, e.hinted, e.rewards])).toEqual([
      [0, false, [0, 0]],
      [1, true, [0, 1]],
    ]);
    expect(again.designs({ step: 0 })[0]).toMatchObject({
      slot: 1,
      trainable: true,
      envId: "d0-1",
      prompt: [{ role: "user", content: "p" }],
    });
    expect(again.samples()).toEqual([
      { step: 0, role: "agent", ref: "d0-1/0", reward: 0, advantage: -1 },
    ]);
    expect(again.getState("sampler")).toEqual({ seed: 3, next: 5 });
    expect(again.steps()).toEqual([{ step: 0, status: "done", metrics: { step: 0, regret: 1 } }]);
    expect(again.doneSteps()).toBe(1);
    again.close();
  });

  it("a failed transaction writes nothing", () => {
    const store = RunStore.open(tmp(), "create");
    expect(() =>
      store.transaction(() => {
        store.insertEnvironment(env);
        store.insertEpisode(episode(0, false));
        store.insertEpisode(episode(0, false)); // duplicate key
      }),
    ).toThrow(/UNIQUE/);
    expect(store.environments()).toEqual([]);
    expect(store.episodes()).toEqual([]);
    store.close();
  });

  it("refuses to create over a run, to resume nothing, and reads read-only", () => {
    const dir = tmp();
    RunStore.open(dir, "create").close();
    expect(() => RunStore.open(dir, "create")).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    expect(() => RunStore.open(join(dir, "nope"), "resume")).toThrow(
      expect.objectContaining({ code: "E_NOT_FOUND" }),
    );
    const ro = RunStore.open(dir, "read");
    expect(() => ro.setState("x", 1)).toThrow(/readonly/);
    ro.close();
  });
});

/** The column names of `table`. */
const columnsOf = (db: Database.Database, table: string): string[] =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);

describe("weights versions and upgradeSchema", () => {
  it("round-trips an episode's weights version, and opens a store written before the column existed", () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.transaction(() => {
      store.insertEpisode({ ...episode(0, false), weightsVersion: 3 });
      store.insertEpisode(episode(1, false));
    });
    expect(store.episodes().map((e) => e.weightsVersion)).toEqual([3, undefined]);
    store.close();

    // A store of the same schema version written before the column: drop it again.
    const old = new Database(join(dir, STORE_FILE));
    for (const table of ["designs", "episodes"])
      old.exec(`ALTER TABLE ${table} DROP COLUMN weights_version`);
    expect(columnsOf(old, "episodes")).not.toContain("weights_version");
    old.close();
    const read = RunStore.open(dir, "read");
    expect(read.episodes().map((e) => [e.idx, e.weightsVersion])).toEqual([
      [0, undefined],
      [1, undefined],
    ]);
    read.close();
    const resumed = RunStore.open(dir, "resume");
    resumed.transaction(() => resumed.insertEpisode({ ...episode(2, false), weightsVersion: 1 }));
    expect(resumed.episodes().map((e) => e.weightsVersion)).toEqual([undefined, undefined, 1]);
    resumed.close();
    const upgraded = new Database(join(dir, STORE_FILE), { readonly: true });
    for (const table of ["designs", "episodes"])
      expect(columnsOf(upgraded, table).filter((n) => n === "weights_version")).toEqual([
        "weights_version",
      ]);
    upgraded.close();
  });
});

describe("the environments' language column (issue 17)", () => {
  const python = "class CoinEnv:\n    def reset(self, seed=None):\n        return 'x', {}\n";

  it("is told from the code when a row is stored: JavaScript, Python or an OpenEnv reference", () => {
    const store = RunStore.open(tmp(), "create");
    store.transaction(() => {
      store.insertEnvironment(env);
      store.insertEnvironment({ ...env, id: "d0-2", code: python });
      store.insertEnvironment({ ...env, id: "remote-0", code: "openenv+ws://h:8000/echo" });
    });
    expect(store.environments().map((e) => [e.id, e.language])).toEqual([
      ["d0-1", "javascript"],
      ["d0-2", "python"],
      ["remote-0", "openenv"],
    ]);
    store.close();
  });

  it("is added to a store made before it, filled from the code, when the store opens to write", () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.transaction(() => {
      store.insertEnvironment(env);
      store.insertEnvironment({ ...env, id: "d0-2", code: python });
    });
    store.close();
    // The store as SPADE wrote it before the column: the same rows, no language.
    const db = new Database(join(dir, STORE_FILE));
    db.exec("ALTER TABLE environments DROP COLUMN language");
    db.close();
    const read = RunStore.open(dir, "read");
    expect(read.environments().map((e) => e.language)).toEqual(["javascript", "python"]);
    read.close();
    for (const _ of [1, 2]) {
      const resumed = RunStore.open(dir, "resume");
      resumed.close();
    }
    const raw = new Database(join(dir, STORE_FILE), { readonly: true });
    expect(raw.prepare("SELECT id, language FROM environments ORDER BY id").all()).toEqual([
      { id: "d0-1", language: "javascript" },
      { id: "d0-2", language: "python" },
    ]);
    raw.close();
  });
});

/** A designed (or library) environment made at `createdStep` in `slot`, measured when `winRate` is given. */
const envAt = (
  id: string,
  createdStep: number,
  slot: number | null,
  winRate: number | null = null,
  source: EnvironmentRow["source"] = "designer",
): EnvironmentRow => ({
  ...env,
  id,
  name: id,
  code: `class Environment {} // ${id}`,
  language: "javascript",
  source,
  createdStep,
  slot,
  stats: { ...EMPTY_STATS, winRate, plays: winRate === null ? 0 : 1 },
});
const idsOf = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id);

describe("RunStore: the per-step reads", () => {
  /** Steps 0, 4, 8 with two designs each (slot 1 inserted before slot 0), library rows at step 0. */
  const filled = (): RunStore => {
    const store = RunStore.open(tmp(), "create");
    store.transaction(() => {
      store.insertEnvironment(envAt("lib-b", 0, null, 0.5, "library"));
      store.insertEnvironment(envAt("lib-a", 0, null, null, "library"));
      for (const step of [8, 0, 4]) {
        store.insertEnvironment(envAt(`d${step}-1`, step, 1, step === 4 ? null : 0.25));
        store.insertEnvironment(envAt(`d${step}-0`, step, 0, 0.75));
      }
    });
    return store;
  };

  it("environments: one source, one step or a range of creation steps, in the store's order", () => {
    const store = filled();
    expect(idsOf(store.environments())).toEqual([
      "d0-0",
      "d0-1",
      "lib-a",
      "lib-b",
      "d4-0",
      "d4-1",
      "d8-0",
      "d8-1",
    ]);
    expect(idsOf(store.environments({ source: "library" }))).toEqual(["lib-a", "lib-b"]);
    expect(idsOf(store.environments({ source: "designer", step: 4 }))).toEqual(["d4-0", "d4-1"]);
    expect(idsOf(store.environments({ source: "designer", step: 5 }))).toEqual([]);
    expect(idsOf(store.environments({ source: "designer", fromStep: 1, beforeStep: 8 }))).toEqual([
      "d4-0",
      "d4-1",
    ]);
    expect(store.environments({ fromStep: 4, beforeStep: 5 })).toEqual([
      envAt("d4-0", 4, 0, 0.75),
      envAt("d4-1", 4, 1),
    ]);
    store.close();
  });

  it("environmentSummaries: the same rows without their programs", () => {
    const store = filled();
    const { code: _code, ...summary } = envAt("d8-0", 8, 0, 0.75);
    const { code: _code1, ...summary1 } = envAt("d8-1", 8, 1, 0.25);
    expect(store.environmentSummaries({ fromStep: 5 })).toEqual([summary, summary1]);
    expect(idsOf(store.environmentSummaries({ source: "library" }))).toEqual(["lib-a", "lib-b"]);
    store.close();
  });

  it("measuredDesigns: the newest `limit` measured designs before a step, oldest first", () => {
    const store = filled();
    // d4-1 has no win rate; library rows are never designs.
    expect(idsOf(store.measuredDesigns({ beforeStep: 100, limit: 100 }))).toEqual([
      "d0-0",
      "d0-1",
      "d4-0",
      "d8-0",
      "d8-1",
    ]);
    expect(idsOf(store.measuredDesigns({ beforeStep: 100, limit: 3 }))).toEqual([
      "d4-0",
      "d8-0",
      "d8-1",
    ]);
    expect(idsOf(store.measuredDesigns({ beforeStep: 8, limit: 2 }))).toEqual(["d0-1", "d4-0"]);
    expect(store.measuredDesigns({ beforeStep: 0, limit: 10 })).toEqual([]);
    expect(store.measuredDesigns({ beforeStep: 5, limit: 1 })).toEqual([envAt("d4-0", 4, 0, 0.75)]);
    store.close();
  });

  it("episodeResults and playedAt: episodes without traces, and who played at a step", () => {
    const store = RunStore.open(tmp(), "create");
    const traced = (step: number, envId: string, idx: number): EpisodeRow => ({
      ...episode(idx, idx > 0),
      step,
      envId,
      trace: { turns: [{ tokens: [1, 2] }] },
    });
    store.transaction(() => {
      for (const e of [traced(1, "d0-1", 0), traced(0, "d0-2", 1), traced(0, "d0-1", 0)])
        store.insertEpisode(e);
    });
    const { trace: _trace, ...result } = traced(1, "d0-1", 0);
    expect(store.episodeResults({ fromStep: 1 })).toEqual([result]);
    expect(store.episodeResults({ step: 0 }).map((e) => [e.envId, e.idx])).toEqual([
      ["d0-1", 0],
      ["d0-2", 1],
    ]);
    expect(store.episodes({ step: 1 })).toEqual([traced(1, "d0-1", 0)]);
    expect(store.playedAt(0)).toEqual(["d0-1", "d0-2"]);
    expect(store.playedAt(2)).toEqual([]);
    store.close();
  });

  it("designOutcomes: design attempts without prompt, completion, program, report or tokens", () => {
    const store = RunStore.open(tmp(), "create");
    const attempt = (step: number, slot: number, seq: number) => ({
      step,
      slot,
      seq,
      attempt: seq,
      repairTurn: 0,
      skill: "Logical Deduction",
      docId: null,
      prompt: [{ role: "user", content: "p" }],
      completion: "c",
      program: null,
      outcome: seq === 0 ? "no-program" : "valid",
      report: null,
      duplicateOf: null,
      memoryRefs: [],
      trainable: seq === 1,
      tokens: { prompt: [1, 2, 3] },
      envId: seq === 1 ? `d${step}-${slot}` : null,
    });
    store.transaction(() => {
      for (const d of [attempt(4, 0, 1), attempt(0, 2, 0), attempt(4, 0, 0)]) store.insertDesign(d);
    });
    expect(store.designOutcomes({ fromStep: 1 })).toEqual([
      {
        step: 4,
        slot: 0,
        seq: 0,
        attempt: 0,
        repairTurn: 0,
        skill: "Logical Deduction",
        docId: null,
        outcome: "no-program",
        duplicateOf: null,
        trainable: false,
        envId: null,
      },
      {
        step: 4,
        slot: 0,
        seq: 1,
        attempt: 1,
        repairTurn: 0,
        skill: "Logical Deduction",
        docId: null,
        outcome: "valid",
        duplicateOf: null,
        trainable: true,
        envId: "d4-0",
      },
    ]);
    expect(store.designOutcomes({ step: 0 }).map((d) => [d.slot, d.seq])).toEqual([[2, 0]]);
    store.close();
  });

  it("a store made before the creation-step index gets it when opened to write", () => {
    const dir = tmp();
    RunStore.open(dir, "create").close();
    const indexes = () => {
      const db = new Database(join(dir, STORE_FILE), { readonly: true });
      const names = (db.pragma("index_list(environments)") as Array<{ name: string }>)
        .map((i) => i.name)
        .filter((n) => !n.startsWith("sqlite_autoindex"));
      db.close();
      return names;
    };
    expect(indexes()).toEqual(["environments_by_step"]);
    const old = new Database(join(dir, STORE_FILE));
    old.exec("DROP INDEX environments_by_step");
    old.close();
    expect(indexes()).toEqual([]);
    RunStore.open(dir, "resume").close();
    expect(indexes()).toEqual(["environments_by_step"]);
  });
});
