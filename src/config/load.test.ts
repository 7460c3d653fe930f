import { describe, expect, it } from "vitest";
import { buildConfig, flagName, preset } from "./load.js";

describe("buildConfig", () => {
  it("applies the reference defaults and derives R, D, skills and document length from the mode", () => {
    const games = buildConfig([]);
    expect(games).toMatchObject({ steps: 400, designsPerStep: 24, plays: 8, hintedPlays: 16, regenerateEvery: 4, rewardDelay: 4, maxWords: 6000, reward: "blend", invalidDesign: "lowest", train: true });
    expect(games.skills).toHaveLength(6);
    const tools = buildConfig([{ mode: "tool-use" }]);
    expect(tools).toMatchObject({ regenerateEvery: 8, rewardDelay: 8, maxWords: 4000 });
    expect(tools.skills).toContain("Error Recovery");
  });

  it("layers preset < file < flags and coerces flag strings", () => {
    const cfg = buildConfig([preset("quick"), { steps: 5, skills: ["A"] }, { steps: "7", skills: "X, Y,Z", train: "false", temperature: "0.5" }]);
    expect(cfg).toMatchObject({ steps: 7, designsPerStep: 4, skills: ["X", "Y", "Z"], train: false, temperature: 0.5, regenerateEvery: 1, rewardDelay: 1 });
  });

  it("names the key and flag of an invalid value, and rejects unknown keys and presets", () => {
    expect(() => buildConfig([{ designsPerStep: "0" }])).toThrow(/^setting designsPerStep \(--designs-per-step\): Too small: expected number to be >=1 \(got "0"\)$/);
    expect(() => buildConfig([{ reward: "vibes" }])).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
    expect(() => buildConfig([{ stepz: 3 }])).toThrow(/unknown setting: stepz/);
    expect(() => preset("huge")).toThrow(/unknown preset "huge"/);
    expect(flagName("hintedPlays")).toBe("hinted-plays");
  });

  it("bounds every size setting with a message that says why", () => {
    expect(() => buildConfig([{ plays: "1e8" }])).toThrow(/^setting plays \(--plays\): at most 1,024 \(every play of a step is held in memory for scoring\) \(got "1e8"\)$/);
    expect(() => buildConfig([{ hintedPlays: "1e8" }])).toThrow(expect.objectContaining({ code: "E_CONFIG", message: expect.stringMatching(/^setting hintedPlays \(--hinted-plays\): at most 1,024/) }));
    expect(() => buildConfig([{ designsPerStep: "1e8" }])).toThrow(/^setting designsPerStep \(--designs-per-step\): at most 1,024 /);
    expect(() => buildConfig([{ steps: "1e12" }])).toThrow(/^setting steps \(--steps\): at most 1,000,000 /);
    expect(() => buildConfig([{ concurrency: 5000 }])).toThrow(/^setting concurrency \(--concurrency\): at most 1,024 /);
    expect(() => buildConfig([{ maxAnswerBytes: 10 }])).toThrow(/^setting maxAnswerBytes \(--max-answer-bytes\): Too small: expected number to be >=1024/);
    expect(() => buildConfig([{ requestTimeout: "0" }])).toThrow(/^setting requestTimeout \(--request-timeout\): Too small/);
    expect(() => buildConfig([{ retryBudget: "1e9" }])).toThrow(/^setting retryBudget \(--retry-budget\): at most 604,800 s/);
    expect(buildConfig([{ plays: 1024, hintedPlays: 0, designsPerStep: 64 }])).toMatchObject({ plays: 1024, designsPerStep: 64 });
  });

  it("bounds the episodes of one step across settings", () => {
    expect(() => buildConfig([{ plays: 1024, hintedPlays: 1024, designsPerStep: 33 }])).toThrow(
      "a step would play 67584 episodes (--designs-per-step 33 x (--plays 1024 + --hinted-plays 1024)), over the limit of 65536 (lower --designs-per-step, --plays or --hinted-plays (every play of a step is held in memory for scoring))",
    );
    expect(buildConfig([{ plays: 1024, hintedPlays: 1024, designsPerStep: 32 }]).plays).toBe(1024);
  });

  it("has model-server request settings with their defaults", () => {
    expect(buildConfig([])).toMatchObject({ requestTimeout: 600, retryBudget: 1800, maxRetries: 4, maxAnswerBytes: 4_194_304 });
    expect(buildConfig([{ requestTimeout: "2.5", maxRetries: "0" }])).toMatchObject({ requestTimeout: 2.5, maxRetries: 0 });
  });
});
