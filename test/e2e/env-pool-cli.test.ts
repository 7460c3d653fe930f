/**
 * `spade run --designer off --env-pool DIR` end to end through the built command, over the
 * scripted self-play server, on a pool folder in the reference's GPT-5.5 layout written by the
 * test: checksums verified, the pool's validation respected, Python games played in the sandbox.
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { writePoolFixture } from "../fakes/pool-fixture.js";
import { startSelfPlayServer } from "../fakes/selfplay-server.js";
import { spade, type SpadeResult } from "./cli.js";

let server: FakeOpenAIServer;
const dir = mkdtempSync(join(tmpdir(), "spade-env-pool-"));
const pool = writePoolFixture(join(dir, "pool"));
const out = join(dir, "run");
let result: SpadeResult;

function flags(poolDir: string, runDir: string): string[] {
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
    "2",
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
  ];
}

beforeAll(async () => {
  // TEST DOUBLE: no designer requests are scripted; the agent double reads "The answer is X".
  server = await startSelfPlayServer({ runSeed: 3, designs: [] });
  result = await spade(flags(pool, out));
}, 240_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
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
