/** `--train-designer off` (the paper's ablation): designer samples are scored and stored, but only the agent's reach the trainer. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioConfig, useScenarioServer } from "../../test/e2e/selfplay-scenario.js";
import { RunStore } from "../store/index.js";
import type { Trainer, TrainSample } from "../trainer/index.js";
import { runSelfPlay } from "./run.js";

const scenario = useScenarioServer("spade-train-designer-");

/** TEST DOUBLE: a trainer that records what each step hands it and trains nothing. */
function recordingTrainer(): Trainer & {
  batches: Array<{ step: number; samples: TrainSample[] }>;
} {
  const batches: Array<{ step: number; samples: TrainSample[] }> = [];
  return {
    batches,
    train: async (step, samples) => (
      batches.push({ step, samples: [...samples] }), { metrics: { datums: samples.length } }
    ),
  };
}

async function run(name: string, trainDesigner: "on" | "off") {
  const config = scenarioConfig({ trainDesigner });
  const trainer = recordingTrainer();
  const out = join(scenario.dir, name);
  const policy = scenario.policy();
  await runSelfPlay(
    out,
    config,
    { policy, trainer, progress: () => {}, now: () => 0 },
    { resume: false },
  );
  const store = RunStore.open(out, "read");
  const stored = store.samples();
  store.close();
  const roles = (step: number) =>
    trainer.batches.find((b) => b.step === step)?.samples.map((s) => s.role) ?? [];
  return { stored, roles };
}

describe("--train-designer", () => {
  it("on (default): steps 2 and 3 train step 0's and step 2's 3 designer samples with the agent's", async () => {
    const { stored, roles } = await run("on", "on");
    expect(roles(2).filter((r) => r === "designer")).toHaveLength(3);
    expect(roles(3).filter((r) => r === "designer")).toHaveLength(3);
    expect(stored.filter((s) => s.role === "designer")).toHaveLength(6);
  }, 60_000);

  it("off: the same 6 designer samples are scored and stored, none reaches the trainer; the agent's all do", async () => {
    const { stored, roles } = await run("off", "off");
    const designerRows = stored.filter((s) => s.role === "designer");
    expect(designerRows.map((s) => [s.step, s.ref])).toEqual([
      [2, "0/0/1"],
      [2, "0/1/0"],
      [2, "0/2/1"],
      [3, "2/0/1"],
      [3, "2/1/0"],
      [3, "2/2/0"],
    ]);
    for (const step of [0, 1, 2, 3]) {
      expect(roles(step)).toEqual(
        stored.filter((s) => s.step === step && s.role === "agent").map(() => "agent"),
      );
    }
    expect(roles(2).length).toBeGreaterThan(0);
  }, 60_000);
});
