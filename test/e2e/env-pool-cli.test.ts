/**
 * `spade run --designer off --env-pool DIR|rlve:DIR` end to end through the built command, over
 * the scripted self-play server: on a pool folder in the reference's GPT-5.5 layout written by
 * the test (checksums verified, the pool's validation respected, Python games played in the
 * sandbox), and on a tiny RLVE-shaped checkout written by the test (CI has no network), where the
 * sliding-window controller raises the difficulty of the environment the agent wins and leaves
 * the one it loses at 0, as the reference's SlidingWindowController does.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DifficultyState } from "../../src/loop/rlve-pool.js";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { writePoolFixture } from "../fakes/pool-fixture.js";
import { writeRlveFixture } from "../fakes/rlve-fixture.js";
import { startSelfPlayServer } from "../fakes/selfplay-server.js";
import { spade, type SpadeResult } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

let server: FakeOpenAIServer;
const dir = fileTempDir("spade-env-pool-");
const pool = writePoolFixture(join(dir, "pool"));
const checkout = writeRlveFixture(join(dir, "RLVE"));
const out = join(dir, "run");
const rlveOut = join(dir, "run-rlve");
let result: SpadeResult;
let rlveResult: SpadeResult;

/** A run of `steps` steps on the pool `poolDir`, with `extra` flags. */
function flags(poolDir: string, runDir: string, steps = 2, extra: string[] = []): string[] {
  return [
    "run",
    "--out",
    runDir,
    "--no-train",
    "--base-url",
    server.baseURL,
    "--model",
    "scripted-double",
    "--seed",
    "3",
    "--designer",
    "off",
    "--env-pool",
    poolDir,
    "--steps",
    String(steps),
    "--designs-per-step",
    "2",
    "--regenerate-every",
    "1",
    "--plays",
    "2",
    "--agent-batch",
    "4",
    "--batch-fit",
    "off",
    "--hints",
    "program",
    "--concurrency",
    "2",
    ...extra,
  ];
}

/** The RLVE run: 4 steps, the controller counting the 2 plays of a step (--difficulty-tau-num 2). */
const rlveFlags = (pool: string, runDir: string) =>
  flags(pool, runDir, 4, ["--difficulty-tau-num", "2"]);

beforeAll(async () => {
  // TEST DOUBLE: no designer requests are scripted; the agent double reads "The answer is X".
  server = await startSelfPlayServer({ runSeed: 3, designs: [] });
  result = await spade(flags(pool, out));
  rlveResult = await spade(rlveFlags(`rlve:${checkout}#*`, rlveOut));
}, 360_000);
afterAll(async () => {
  await server.close();
});

describe("spade run --designer off --env-pool DIR", () => {
  it("trains on the pool's valid games only, with their manifest skills", () => {
    expect(result.stderr).toContain("step 2/2");
    expect(result.code).toBe(0);
    const store = RunStore.open(out, "read");
    const environments = store.environments();
    const episodes = store.episodes();
    store.close();
    expect(environments.map((e) => [e.id, e.name, e.skill, e.source]).sort()).toEqual([
      ["pool-game_000000", "shown-answer", "Logical Deduction", "library"],
      ["pool-game_000001", "hidden-answer", "Pattern Recognition", "library"],
    ]);
    // 2 steps x 2 games x 2 plays; the shown answer is always won, the hidden one never.
    expect(episodes).toHaveLength(8);
    expect(episodes.every((e) => e.failure === null)).toBe(true);
    const wins = (id: string) => episodes.filter((e) => e.envId === id).map((e) => e.success);
    expect(wins("pool-game_000000")).toEqual([true, true, true, true]);
    expect(wins("pool-game_000001")).toEqual([false, false, false, false]);
  });

  it("shows the pool games' language in runs show", async () => {
    const shown = await spade(["runs", "show", out, "--json"]);
    const rows = JSON.parse(shown.stdout).environments as Array<Record<string, unknown>>;
    expect(rows.map((e) => [e.id, e.language])).toEqual([
      ["pool-game_000000", "python"],
      ["pool-game_000001", "python"],
    ]);
    const text = await spade(["runs", "show", out]);
    expect(text.stdout).toMatch(/\nlibrary +shown-answer +Logical Deduction +python +2 +1\.000 /);
  });

  it("refuses a pool edited after its checksums were taken, before anything is played", async () => {
    appendFileSync(join(pool, "games", "game_000000.py"), "\n# edited\n");
    const edited = await spade(flags(pool, join(dir, "run-edited")));
    expect(edited.code).not.toBe(0);
    expect(edited.stderr).toMatch(
      /E_IO.*env pool: the checksum of games\/game_000000.py does not match/,
    );
  }, 120_000);

  it("refuses --env-pool without --designer off", async () => {
    const mixed = await spade(
      flags(pool, join(dir, "run-mixed")).filter(
        (f, i, all) => f !== "--designer" && all[i - 1] !== "--designer",
      ),
    );
    expect(mixed.code).not.toBe(0);
    expect(mixed.stderr).toMatch(
      /E_CONFIG.*--env-pool .* is the pool of the fixed-environment baseline/,
    );
  });
});

describe("spade run --designer off --env-pool rlve:DIR", () => {
  it("raises the difficulty of the environment won at its top difficulty, not of the one lost", () => {
    expect(rlveResult.stderr).toContain("step 4/4");
    expect(rlveResult.code).toBe(0);
    const store = RunStore.open(rlveOut, "read");
    const episodes = store.episodes();
    const windows = store.getState<DifficultyState>("difficulty");
    const ids = store.environments().map((e) => e.id);
    const shownObservation = (envId: string) =>
      (episodes.find((e) => e.envId === envId)!.transcript as { firstObservation: string })
        .firstObservation;
    const numbersAtD1 = /Add these numbers: ([\d ]+)\./.exec(shownObservation("rlve-ShownSum-d1"));
    store.close();
    // Step by step (tau_num 2 = the 2 plays of a step, all won): step 0 at 0 -> [0, 1]; the
    // draws of steps 1-3 from the window (keyed by the run seed) give 0 (below the top: not
    // counted), 1 -> [0, 2], 0 (not counted).
    const played = (id: string) =>
      [0, 1, 2, 3].map(
        (step) => episodes.find((e) => e.step === step && e.envId.startsWith(id))?.envId,
      );
    // The one lost at 0 every step: each check fails and starts the count over.
    expect({ shown: played("rlve-ShownSum"), hidden: played("rlve-HiddenSum") }).toEqual({
      shown: ["rlve-ShownSum-d0", "rlve-ShownSum-d0", "rlve-ShownSum-d1", "rlve-ShownSum-d0"],
      hidden: Array(4).fill("rlve-HiddenSum-d0"),
    });
    expect(windows).toEqual({
      ShownSum: { low: 0, high: 2, successesAtHigh: 0, attemptsAtHigh: 0 },
      HiddenSum: { low: 0, high: 0, successesAtHigh: 0, attemptsAtHigh: 0 },
    });
    expect(ids.sort()).toEqual(["rlve-HiddenSum-d0", "rlve-ShownSum-d0", "rlve-ShownSum-d1"]);
    // Difficulty 1 is the controller updated once: 5 numbers.
    expect(numbersAtD1?.[1]?.split(" ")).toHaveLength(5);
    // The plays of a group share one problem (the reference's same-problem groups).
    for (const step of [0, 1, 2, 3]) {
      const seeds = episodes.filter((e) => e.step === step && e.envId.startsWith("rlve-ShownSum"));
      expect(seeds.map((e) => e.success)).toEqual([true, true]);
      expect(seeds[0]!.seed).toBe(seeds[1]!.seed);
    }
  });

  it("refuses an RLVE identifier the checkout lacks, before anything is played", async () => {
    const missing = await spade(rlveFlags(`rlve:${checkout}#Sorting`, join(dir, "run-missing")));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(
      /E_CONFIG.*env pool rlve: .* has no environment with a parameter controller named Sorting/,
    );
  }, 120_000);
});
