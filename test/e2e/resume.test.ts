/**
 * Killing `spade run` with SIGKILL while it designs, while it plays and inside a store write,
 * then resuming with `spade run --resume`, leaves exactly the store of an uninterrupted run; in
 * the synchronous order and pipelined (`--max-off-policy 1`: step t+1's designs and plays are
 * stored before step t is committed).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunStore, STORE_FILE } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer, type SelfPlayServerOptions } from "../fakes/selfplay-server.js";
import { DESIGNS, RUN_SEED, runFlags, spade, spadeAsync } from "./selfplay-scenario.js";
import { storeDump } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-resume-");
const options: SelfPlayServerOptions = { runSeed: RUN_SEED, designs: DESIGNS };
let server: FakeOpenAIServer;
/** The uninterrupted run's store per --max-off-policy. */
const baselines = new Map<number, Record<string, unknown>>();

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
async function killWhen(flags: string[], ready: () => boolean) {
  const { child, done } = spadeAsync(flags);
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
});
afterAll(async () => {
  await server.close();
});

describe.each([0, 1])("resume after SIGKILL, --max-off-policy %i", (k) => {
  const flags = (out: string) => [...runFlags(server.baseURL, out), "--max-off-policy", String(k)];
  let baseline: Record<string, unknown>;
  beforeAll(async () => {
    const out = join(dir, `baseline-${k}`);
    const run = await spade(flags(out));
    expect(run.code).toBe(0);
    baseline = storeDump(out);
    baselines.set(k, baseline);
  });

  it("during designing: the slots that finished are kept, the rest are designed again", async () => {
    const out = join(dir, `designing-${k}`);
    options.designDelayMs = 300;
    const ended = await killWhen(flags(out), () => count(out, "designs") > 0);
    options.designDelayMs = 0;
    expect(ended.signal).toBe("SIGKILL");
    const kept = count(out, "designs");
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(5);
    await resumeToEnd(out);
    expect(storeDump(out)).toEqual(baseline);
  });

  it("during rollouts: finished groups are kept, the others are played again", async () => {
    const out = join(dir, `playing-${k}`);
    options.agentDelayMs = 150;
    const ended = await killWhen(flags(out), () => count(out, "episodes") > 0);
    options.agentDelayMs = 0;
    expect(ended.signal).toBe("SIGKILL");
    expect(count(out, "episodes")).toBeGreaterThan(0);
    await resumeToEnd(out);
    expect(storeDump(out)).toEqual(baseline);
  });

  it.each([1, 4, 9, 14])(
    "inside store transaction %i: the half-written transaction is rolled back",
    async (n) => {
      const out = join(dir, `write-${k}-${n}`);
      const killed = await spade(flags(out), {
        SPADE_TEST_KILL_IN_TRANSACTION: String(n),
      });
      expect(killed.signal).toBe("SIGKILL");
      await resumeToEnd(out);
      expect(storeDump(out)).toEqual(baseline);
    },
  );

  it("twice in a row, then resumed", async () => {
    const out = join(dir, `twice-${k}`);
    expect((await spade(flags(out), { SPADE_TEST_KILL_IN_TRANSACTION: "6" })).signal).toBe(
      "SIGKILL",
    );
    expect(
      (await spade(["run", "--resume", out], { SPADE_TEST_KILL_IN_TRANSACTION: "3" })).signal,
    ).toBe("SIGKILL");
    await resumeToEnd(out);
    expect(storeDump(out)).toEqual(baseline);
  });
});

describe("--max-off-policy 1 without training", () => {
  it("writes the rows of the synchronous order: only the stored setting differs", () => {
    const withoutConfig = (d: Record<string, unknown>) => ({
      ...d,
      meta: (d.meta as Array<{ key: string }>).filter((m) => m.key !== "config"),
    });
    expect(baselines.size).toBe(2);
    expect(withoutConfig(baselines.get(1) as Record<string, unknown>)).toEqual(
      withoutConfig(baselines.get(0) as Record<string, unknown>),
    );
  });
});
