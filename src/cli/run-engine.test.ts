// The loss settings `spade run` hands the trainer, for new runs and for runs stored before a setting existed.
import { describe, expect, it } from "vitest";
import { buildConfig, preset, type RunConfig } from "../config/index.js";
import { TinkerHttp } from "../policy/index.js";
import { TinkerTrainer, TinkerTrainingClient } from "../trainer/index.js";
import { trainerSettings } from "./run-engine.js";

// Nothing is sent: the settings are read, no request is made.
const http = new TinkerHttp({ baseURL: "http://127.0.0.1:1", heartbeatMs: 0 });
const client = new TinkerTrainingClient(http, { baseModel: "Org/Tiny-1B" });
const trainerOf = (config: RunConfig) =>
  new TinkerTrainer({ client, ...trainerSettings(config, http, "Org/Tiny-1B") });

describe("trainerSettings", () => {
  it("defaults: Tinker's token sum, no gradient clipping; the reference presets: Slime's sample mean, clip 1.0", () => {
    const plain = trainerOf(buildConfig([]));
    expect([plain.lossAggregation, plain.adam.gradClipNorm]).toEqual(["token-sum", 0]);
    for (const name of ["reference", "reference-tool-use"]) {
      const reference = trainerOf(buildConfig([preset(name)]));
      expect([reference.lossAggregation, reference.adam.gradClipNorm]).toEqual(["sample-mean", 1]);
    }
    const set = trainerOf(buildConfig([{ lossAggregation: "sample-mean", gradClipNorm: "0.5" }]));
    expect([set.lossAggregation, set.adam]).toEqual([
      "sample-mean",
      {
        learningRate: 1e-6,
        beta1: 0.9,
        beta2: 0.98,
        eps: 1e-8,
        weightDecay: 0.1,
        gradClipNorm: 0.5,
      },
    ]);
  });

  it("a run stored before lossAggregation and gradClipNorm existed trains as it did: token sum, no clipping", () => {
    // The stored config of a reference-preset run from before the settings: without them.
    const { lossAggregation: _l, gradClipNorm: _g, ...stored } = buildConfig([preset("reference")]);
    const old = trainerOf(stored as RunConfig);
    expect([old.lossAggregation, old.adam.gradClipNorm]).toEqual(["token-sum", 0]);
  });
});
