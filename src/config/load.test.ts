import { describe, expect, it } from "vitest";
import { buildConfig, flagName, preset } from "./load.js";

describe("buildConfig", () => {
  it("applies the reference defaults and derives R, D, skills and document length from the mode", () => {
    const games = buildConfig([]);
    expect(games).toMatchObject({ steps: 400, designsPerStep: 24, plays: null, agentBatch: 192, batchFit: "reference", hintedPlays: 16, regenerateEvery: 4, rewardDelay: 4, maxWords: 6000, reward: "blend", invalidDesign: "lowest", train: true });
    // The reference's games recipe: 3 of the 6 skills per regeneration (8 designs each of 24), at most 25 turns.
    expect(games).toMatchObject({ skillsPerRegen: 3, maxTurnsCap: 25, episodeFailures: "reference", memoryDraws: "attempt" });
    expect(games.skills).toHaveLength(6);
    const tools = buildConfig([{ mode: "tool-use" }]);
    expect(tools).toMatchObject({ regenerateEvery: 8, rewardDelay: 8, maxWords: 4000, skillsPerRegen: 6 });
    expect(buildConfig([{ maxTurnsCap: "none" }]).maxTurnsCap).toBeNull();
    expect(buildConfig([{ skills: "A,B" }]).skillsPerRegen).toBe(3);
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
});
