/**
 * Killing `spade run` with SIGKILL while it designs, while it plays and inside a store write,
 * then resuming with `spade run --resume`, leaves exactly the store of an uninterrupted run.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunStore, STORE_FILE } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer, type SelfPlayServerOptions } from "../fakes/selfplay-server.js";
import { DESIGNS, RUN_SEED, runFlags, spade, spadeAsync } from "./selfplay-scenario.js";

const dir = mkdtempSync(join(tmpdir(), "spade-resume-"));
const options: SelfPlayServerOptions = { runSeed: RUN_SEED, designs: DESIGNS };
let server: FakeOpenAIServer;
let baseline: Record<string, unknown>;

function dump(out: string): Record<string, unknown> {
  const store = RunStore.open(out, "read");
  try {
    return store.dump();
  } finally {
    store.close();
  }
}

/** Rows of `table` so far (0 while the store does not exist yet). */
function count(out: string, what: "designs" | "episodes"): number {
  if (!existsSync(join(out, STORE_FILE))) return 0;
  try {
    const store = RunStore.open(out, "read");
    try {
      return what === "designs" ? store.designs().length : store.episodes().length;
    } finally {
      store.close();
    }
  } catch {
    return 0; // the schema is being created
  }
}

/** Starts a run and SIGKILLs it once `ready()` holds; returns how it ended. */
async function killWhen(out: string, ready: () => boolean) {
  const { child, done } = spadeAsync(runFlags(server.baseURL, out));
  const deadline = Date.now() + 60_000;
  while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  child.kill("SIGKILL");
  return done;
}

async function resumeToEnd(out: string) {
  const resumed = await spade(["run", "--resume", out]);
  expect(resumed.stderr).toContain("step 4/4");
  expect(resumed.code).toBe(0);
}

beforeAll(async () => {
  server = await startSelfPlayServer(options);
  const out = join(dir, "baseline");
  const run = await spade(runFlags(server.baseURL, out));
  expect(run.code).toBe(0);
  baseline = dump(out);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("resume after SIGKILL", () => {
  it("during designing: the slots that finished are kept, the rest are designed again", async () => {
    const out = join(dir, "designing");
    options.designDelayMs = 300;
    const ended = await killWhen(out, () => count(out, "designs") > 0);
    options.designDelayMs = 0;
    expect(ended.signal).toBe("SIGKILL");
    const kept = count(out, "designs");
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(5);
    await resumeToEnd(out);
    expect(dump(out)).toEqual(baseline);
  });

  it("during rollouts: finished groups are kept, the others are played again", async () => {
    const out = join(dir, "playing");
    options.agentDelayMs = 150;
    const ended = await killWhen(out, () => count(out, "episodes") > 0);
    options.agentDelayMs = 0;
    expect(ended.signal).toBe("SIGKILL");
    expect(count(out, "episodes")).toBeGreaterThan(0);
    await resumeToEnd(out);
    expect(dump(out)).toEqual(baseline);
  });

  it.each([1, 4, 9, 14])(
    "inside store transaction %i: the half-written transaction is rolled back",
    async (n) => {
      const out = join(dir, `write-${n}`);
      const killed = await spade(runFlags(server.baseURL, out), {
        SPADE_TEST_KILL_IN_TRANSACTION: String(n),
      });
      expect(killed.signal).toBe("SIGKILL");
      await resumeToEnd(out);
      expect(dump(out)).toEqual(baseline);
    },
  );

  it("twice in a row, then resumed", async () => {
    const out = join(dir, "twice");
    expect(
      (await spade(runFlags(server.baseURL, out), { SPADE_TEST_KILL_IN_TRANSACTION: "6" })).signal,
    ).toBe("SIGKILL");
    expect(
      (await spade(["run", "--resume", out], { SPADE_TEST_KILL_IN_TRANSACTION: "3" })).signal,
    ).toBe("SIGKILL");
    await resumeToEnd(out);
    expect(dump(out)).toEqual(baseline);
  });
});
