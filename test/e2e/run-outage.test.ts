/**
 * A model server that goes down stops `spade run` with E_POLICY_UNAVAILABLE once `--outage-after`
 * requests in a row have failed, instead of running on and storing every design and episode as a
 * failure; once the server answers again, `--resume` finishes the run with exactly the store of an
 * uninterrupted run. `--outage-after 1`: no unit is stored with a failed request, whenever the
 * server goes down (a larger count may store up to that many failures first: src/policy/outage.ts).
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

const dir = fileTempDir("spade-outage-");
const options: SelfPlayServerOptions = { runSeed: RUN_SEED, designs: DESIGNS };
let server: FakeOpenAIServer;
let baseline: Record<string, unknown>;

/** The scenario's flags; a failed request is not retried, so an outage is seen at once. */
const flags = (out: string) => [
  ...runFlags(server.baseURL, out),
  "--outage-after",
  "1",
  "--max-retries",
  "0",
];

/** What the store of `out` holds: steps done, design rows, episode rows. */
function counts(out: string): { steps: number; designs: number; episodes: number } {
  if (!existsSync(join(out, STORE_FILE))) return { steps: 0, designs: 0, episodes: 0 };
  try {
    const store = RunStore.open(out, "read");
    try {
      return {
        steps: store.doneSteps(),
        designs: store.designs().length,
        episodes: store.episodes().length,
      };
    } finally {
      store.close();
    }
  } catch {
    return { steps: 0, designs: 0, episodes: 0 }; // the schema is being created
  }
}

const UNAVAILABLE =
  /spade: E_POLICY_UNAVAILABLE: a model request failed after its retries \(E_POLICY_HTTP: [^\n]*HTTP 503[^\n]*\); stopped so that no more work fails/;

beforeAll(async () => {
  server = await startSelfPlayServer(options);
  const out = join(dir, "baseline");
  const run = await spade(flags(out));
  expect(run.code).toBe(0);
  baseline = storeDump(out);
});
afterAll(async () => {
  await server.close();
});

describe("spade run when the model server goes down", () => {
  it("down from the start: stops after one request, stores nothing, resumes to the uninterrupted store", async () => {
    const out = join(dir, "down-at-start");
    const before = server.requests.length;
    options.down = true;
    const run = await spade(flags(out)).finally(() => {
      options.down = false;
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(UNAVAILABLE);
    expect(run.stderr).toContain(
      `(once the model server answers again (spade doctor checks it), continue with: spade run --resume ${out} (a server that moved: add --base-url URL))`,
    );
    expect(run.stderr).not.toContain("done. Results are in");
    // The three slots' first requests were in flight together; none was retried or followed.
    expect(server.requests.length - before).toBeLessThanOrEqual(3);
    expect(counts(out)).toEqual({ steps: 0, designs: 0, episodes: 0 });

    const resumed = await spade(["run", "--resume", out]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("step 4/4");
    expect(storeDump(out)).toEqual(baseline);
  });

  it("down while it plays: the steps before are kept, the resumed run ends as the uninterrupted one", async () => {
    const out = join(dir, "down-mid-run");
    options.agentDelayMs = 40;
    const { done } = spadeAsync(flags(out));
    const deadline = Date.now() + 60_000;
    while (counts(out).steps < 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    options.down = true;
    const run = await done.finally(() => {
      options.down = false;
      options.agentDelayMs = 0;
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(UNAVAILABLE);
    const kept = counts(out);
    expect(kept.steps).toBeGreaterThanOrEqual(1);
    expect(kept.steps).toBeLessThan(4);

    const resumed = await spade(["run", "--resume", out]);
    expect(resumed.code).toBe(0);
    expect(storeDump(out)).toEqual(baseline);
  });

  it("a resumed run may be pointed at a server that moved; its stored settings stay", async () => {
    const out = join(dir, "moved");
    options.down = true;
    const stopped = await spade(flags(out)).finally(() => {
      options.down = false;
    });
    expect(stopped.code).toBe(1);
    const moved = await startSelfPlayServer(options);
    try {
      const resumed = await spade([
        "run",
        "--resume",
        out,
        "--base-url",
        moved.baseURL,
        "--max-retries",
        "2",
      ]);
      expect(resumed.code).toBe(0);
      expect(moved.requests.length).toBeGreaterThan(0);
    } finally {
      await moved.close();
    }
    expect(storeDump(out)).toEqual(baseline);
  });

  it("a resumed run still refuses a setting that changes what it computes", async () => {
    const out = join(dir, "baseline");
    const refused = await spade(["run", "--resume", out, "--plays", "3"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "E_CONFIG: a resumed run keeps its settings; only --steps and how the model server is reached (--base-url, --api-key-env, --request-timeout, --retry-budget, --max-retries, --max-answer-bytes, --outage-after) may change (got --plays)",
    );
  });
});
