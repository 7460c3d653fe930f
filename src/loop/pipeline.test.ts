/**
 * Pipelined steps on the scripted scenario with a training double: which weights each step
 * samples from (stored with every design and episode) and that step t's training runs while step
 * t+1 plays. That a run killed inside any of its transactions and resumed writes exactly the
 * rows of an uninterrupted pipelined run is test/e2e/pipeline-kill.test.ts (fifty loop runs).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioConfig, useScenarioServer } from "../../test/e2e/selfplay-scenario.js";
import { checkpointOf, fakeTrainer, pipelineRunner } from "../../test/fakes/pipeline-run.js";
import { RunStore } from "../store/index.js";
import { weightsVersion, type PhaseSpan } from "./pipeline.js";

const scenario = useScenarioServer("spade-pipeline-");

const { recordingPolicy, run } = pipelineRunner(scenario.policy);

/** Weights versions stored per step: `step: [versions of its designs], [versions of its episodes]`. */
function versions(out: string): Record<number, [number[], number[]]> {
  const store = RunStore.open(out, "read");
  try {
    const byStep: Record<number, [number[], number[]]> = {};
    for (const d of store.designs()) (byStep[d.step] ??= [[], []])[0].push(d.weightsVersion ?? -1);
    for (const e of store.episodes()) (byStep[e.step] ??= [[], []])[1].push(e.weightsVersion ?? -1);
    for (const [d, e] of Object.values(byStep)) {
      d.splice(0, d.length, ...new Set(d));
      e.splice(0, e.length, ...new Set(e));
    }
    return byStep;
  } finally {
    store.close();
  }
}

describe("weightsVersion", () => {
  it("is 0 for the initial weights and s + 1 for the weights after step s", () => {
    expect(weightsVersion(null)).toBe(0);
    expect(weightsVersion(checkpointOf(0))).toBe(1);
    expect(weightsVersion(checkpointOf(6))).toBe(7);
  });
});

describe("--max-off-policy", () => {
  it("0: step s samples from the weights step s - 1 trained (version s)", async () => {
    const out = join(scenario.dir, "k0");
    const policy = recordingPolicy();
    const { trainer, log } = fakeTrainer();
    await run(out, scenarioConfig({ maxOffPolicy: 0, batchFit: "off" }), { policy, trainer });
    expect(versions(out)).toEqual({
      0: [[0], [0]],
      1: [[], [1]],
      2: [[2], [2]],
      3: [[], [3]],
    });
    expect(policy.weights).toEqual([0, 1, 2].map((s) => checkpointOf(s).samplerPath));
    expect(log).toEqual(["train 0 (4)", "train 1 (4)", "train 2 (9)", "train 3 (9)"]);
  }, 60_000);

  it("1: step t's training returns only after step t+1 has played; step s samples version s - 1", async () => {
    const out = join(scenario.dir, "k1");
    const policy = recordingPolicy();
    const played = new Map<number, () => void>();
    const playedStep = (step: number) => new Promise<void>((resolve) => played.set(step, resolve));
    const waits = [0, 1, 2, 3].map(playedStep);
    // Step t's training waits for step t+1's plays to be stored: a synchronous loop would never get there.
    const { trainer, log } = fakeTrainer(async (step) => {
      if (step < 3) await waits[step + 1];
    });
    const spans: PhaseSpan[] = [];
    await run(out, scenarioConfig({ maxOffPolicy: 1, batchFit: "off" }), {
      policy,
      trainer,
      onPhase: (span) => {
        spans.push(span);
        if (span.phase === "play") played.get(span.step)?.();
      },
    });
    expect(versions(out)).toEqual({
      0: [[0], [0]],
      1: [[], [0]],
      2: [[1], [1]],
      3: [[], [2]],
    });
    expect(policy.weights).toEqual([0, 1].map((s) => checkpointOf(s).samplerPath));
    // The same batches as the synchronous order (nothing the scores read depends on the weights here).
    expect(log).toEqual(["train 0 (4)", "train 1 (4)", "train 2 (9)", "train 3 (9)"]);
    // Steps are committed in order, each after the next step's plays (the last one after its own).
    expect(
      spans
        .filter((s) => s.phase === "play" || s.phase === "commit")
        .map((s) => `${s.phase} ${s.step}`),
    ).toEqual([
      "play 0",
      "play 1",
      "commit 0",
      "play 2",
      "commit 1",
      "play 3",
      "commit 2",
      "commit 3",
    ]);
  }, 60_000);
});
