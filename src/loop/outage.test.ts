/**
 * The loop under a model server that is down, in-process: with the outage breaker's signal, a
 * design slot whose last request tripped it is not stored (a resumed run designs it again).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioConfig } from "../../test/e2e/selfplay-scenario.js";
import { fileTempDir } from "../../test/cleanup.js";
import { SpadeError } from "../errors.js";
import { OutageBreaker } from "../policy/index.js";
import { RunStore } from "../store/index.js";
import { watchedLoopPolicy, type LoopPolicy } from "./policy.js";
import { runSelfPlay } from "./run.js";

const dir = fileTempDir("spade-loop-outage-");

/** TEST DOUBLE: a model server that refuses every request, counting them. */
function downServer(): LoopPolicy & { requests: number } {
  const down = {
    requests: 0,
    complete: async () => {
      down.requests++;
      throw new SpadeError("E_POLICY_HTTP", "could not reach http://127.0.0.1:9/v1: fetch failed");
    },
    agent: () => async () => {
      down.requests++;
      throw new SpadeError("E_POLICY_HTTP", "could not reach http://127.0.0.1:9/v1: fetch failed");
    },
  };
  return down;
}

describe("runSelfPlay with the outage breaker", () => {
  it("stops at the first failed request and stores none of the slots it ended", async () => {
    const out = join(dir, "down");
    const server = downServer();
    const breaker = new OutageBreaker({ after: 1, nextStep: "resume" });
    const run = runSelfPlay(
      out,
      scenarioConfig({ train: false, maxAttempts: 1 }),
      {
        policy: watchedLoopPolicy(server, breaker),
        trainer: null,
        progress: () => {},
        now: () => 0,
        signal: breaker.signal,
      },
      { resume: false },
    );
    await expect(run).rejects.toMatchObject({ code: "E_CANCELLED" });
    expect(breaker.error?.code).toBe("E_POLICY_UNAVAILABLE");
    // Each of the three slots sent its one attempt; every slot ended on a failed request.
    expect(server.requests).toBe(3);
    const store = RunStore.open(out, "read");
    try {
      expect(store.designs()).toEqual([]);
      expect(store.episodes()).toEqual([]);
      expect(store.doneSteps()).toBe(0);
    } finally {
      store.close();
    }
  });
});
