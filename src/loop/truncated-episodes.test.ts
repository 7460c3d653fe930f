/**
 * `--truncated-episodes`: the reference's tool-use runs pass `--spade-compact-filter`
 * (`spade/slime/spade_rollout.py`: every sample whose episode did not terminate gets an all-zero
 * loss mask after the GRPO advantages were computed); its games runs train them with reward 0.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioConfig, useScenarioServer } from "../../test/e2e/selfplay-scenario.js";
import { RunStore, type SampleRow } from "../store/index.js";
import type { Trainer, TrainSample } from "../trainer/index.js";
import { episodeOutcome } from "./outcome.js";
import { runSelfPlay } from "./run.js";

const scenario = useScenarioServer("spade-truncated-episodes-");

/** TEST DOUBLE: a trainer that records what each step hands it and trains nothing. */
function recordingTrainer(): Trainer & {
  trained: string[];
  batches: Array<[number, number | undefined]>;
} {
  const trained: string[] = [];
  const batches: Array<[number, number | undefined]> = [];
  return {
    trained,
    batches,
    train: async (step, samples: readonly TrainSample[], options) => (
      trained.push(...samples.map((s) => key({ ...s, step }))),
      batches.push([samples.length, options?.batchSize]),
      { metrics: { datums: samples.length } }
    ),
  };
}

/** `step:role:ref` of a sample. */
function key(s: Pick<SampleRow, "step" | "role" | "ref">): string {
  return `${s.step}:${s.role}:${s.ref}`;
}

async function run(name: string, truncatedEpisodes: "train" | "mask") {
  // One turn per episode, so the scenario's multi-turn environments end truncated.
  const config = scenarioConfig({ truncatedEpisodes, maxTurnsCap: 1 });
  const trainer = recordingTrainer();
  const out = join(scenario.dir, name);
  await runSelfPlay(
    out,
    config,
    { policy: scenario.policy(), trainer, progress: () => {}, now: () => 0 },
    { resume: false },
  );
  const store = RunStore.open(out, "read");
  const stored = store.samples();
  const outcomes = new Map(
    store.episodes().map((e) => [`${e.step}:agent:${e.envId}/${e.idx}`, episodeOutcome(e).outcome]),
  );
  store.close();
  const outcomeOf = (s: SampleRow) => outcomes.get(key(s).replace(/#\d+$/, ""));
  return { stored, trained: trainer.trained, batches: trainer.batches, outcomeOf };
}

describe("--truncated-episodes", () => {
  it("mask: truncated episodes are scored and stored as with train, but never reach the trainer", async () => {
    const train = await run("train", "train");
    const mask = await run("mask", "mask");
    // Scoring is the same: the masked episodes still count in GRPO, the batch and the scale.
    expect(mask.stored).toEqual(train.stored);
    const sorted = (keys: string[]) => [...keys].sort();
    expect(sorted(train.trained)).toEqual(sorted(train.stored.map(key)));
    const truncated = mask.stored.filter(
      (s) => s.role === "agent" && mask.outcomeOf(s) === "truncated",
    );
    const kept = mask.stored.filter((s) => !truncated.includes(s));
    expect(kept.some((s) => s.role === "agent")).toBe(true);
    expect(sorted(mask.trained)).toEqual(sorted(kept.map(key)));
    // Four steps of agent samples filled to the batch, and 6 designer samples; copies `<ref>#k`
    // of a truncated episode are masked too, as the reference's upsampled copies are.
    expect([truncated.length, kept.length, mask.stored.length]).toEqual([381, 384, 765]);
    // Each step's batch (the divisor of --loss-aggregation sample-mean) still counts the masked
    // samples, as Slime's step batch does: the same as with train, where every sample is handed over.
    expect(mask.batches).toEqual([
      [94, 189],
      [96, 192],
      [97, 192],
      [97, 192],
    ]);
    expect(train.batches).toEqual([
      [189, 189],
      [192, 192],
      [192, 192],
      [192, 192],
    ]);
  }, 60_000);
});
