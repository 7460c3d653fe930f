import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunStore, STORE_FILE } from "./run-store.js";
import { EMPTY_STATS, type EnvironmentRow, type EpisodeRow } from "./types.js";

const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "spade-store-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

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
