/**
 * `spade run --designer off --env-pool rlve:DIR` end to end through the built command, over the
 * scripted self-play server, on a tiny RLVE-shaped checkout written by the test (CI has no
 * network): the sliding-window controller raises the difficulty of the environment the agent
 * wins and leaves the one it loses at 0, as the reference's SlidingWindowController does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DifficultyState } from "../../src/loop/rlve-pool.js";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { writeRlveFixture } from "../fakes/rlve-fixture.js";
import { startSelfPlayServer } from "../fakes/selfplay-server.js";
import { spade, type SpadeResult } from "./cli.js";

let server: FakeOpenAIServer;
const dir = mkdtempSync(join(tmpdir(), "spade-rlve-cli-"));
const checkout = writeRlveFixture(join(dir, "RLVE"));
const out = join(dir, "run");
let result: SpadeResult;

function flags(pool: string, runDir: string): string[] {
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
    pool,
    "--steps",
    "4",
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
    "--difficulty-tau-num",
    "2",
    "--concurrency",
    "2",
  ];
}

beforeAll(async () => {
  // TEST DOUBLE: no designer requests are scripted; the agent double reads "The answer is X".
  server = await startSelfPlayServer({ runSeed: 3, designs: [] });
  result = await spade(flags(`rlve:${checkout}#*`, out));
}, 240_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("spade run --designer off --env-pool rlve:DIR", () => {
  it("raises the difficulty of the environment won at its top difficulty, not of the one lost", () => {
    expect(result.stderr).toContain("step 4/4");
    expect(result.code).toBe(0);
    const store = RunStore.open(out, "read");
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
    expect(played("rlve-ShownSum")).toEqual([
      "rlve-ShownSum-d0",
      "rlve-ShownSum-d0",
      "rlve-ShownSum-d1",
      "rlve-ShownSum-d0",
    ]);
    expect(windows?.ShownSum).toEqual({ low: 0, high: 2, successesAtHigh: 0, attemptsAtHigh: 0 });
    // Lost at 0 every step: each check fails and starts the count over.
    expect(played("rlve-HiddenSum")).toEqual([
      "rlve-HiddenSum-d0",
      "rlve-HiddenSum-d0",
      "rlve-HiddenSum-d0",
      "rlve-HiddenSum-d0",
    ]);
    expect(windows?.HiddenSum).toEqual({ low: 0, high: 0, successesAtHigh: 0, attemptsAtHigh: 0 });
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
    const missing = await spade(flags(`rlve:${checkout}#Sorting`, join(dir, "run-missing")));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(
      /E_CONFIG.*env pool rlve: .* has no environment with a parameter controller named Sorting/,
    );
  }, 120_000);
});
