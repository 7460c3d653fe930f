import { describe, expect, it } from "vitest";
import { EPISODE_INSERT, SAMPLE_INSERT } from "./inserts.js";
import type { EpisodeRow } from "./types.js";

describe("row inserts", () => {
  it("name each column once, with as many placeholders as values", () => {
    expect(SAMPLE_INSERT.sql).toBe(
      "INSERT INTO samples (step, role, ref, reward, advantage) VALUES (?, ?, ?, ?, ?)",
    );
    expect(
      SAMPLE_INSERT.values({
        step: 3,
        role: "designer",
        ref: "d3-0#1",
        reward: 0.5,
        advantage: -1,
      }),
    ).toEqual([3, "designer", "d3-0#1", 0.5, -1]);
  });

  it("write booleans as 0/1, JSON columns as text, a missing trace and weights version as NULL", () => {
    const episode: EpisodeRow = {
      step: 1,
      envId: "d0-0",
      idx: 2,
      seed: 77,
      hinted: true,
      return: 1,
      success: false,
      turns: 4,
      failure: null,
      failureCode: null,
      rewards: [0, 1],
      transcript: [{ role: "user", content: "go" }],
      trace: null,
    };
    expect(EPISODE_INSERT.sql).toBe(
      "INSERT INTO episodes (step, env_id, idx, seed, hinted, return, success, turns, failure, failure_code, rewards, transcript, trace, weights_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    expect(EPISODE_INSERT.values(episode)).toEqual([
      1,
      "d0-0",
      2,
      77,
      1,
      1,
      0,
      4,
      null,
      null,
      "[0,1]",
      '[{"role":"user","content":"go"}]',
      null,
      null,
    ]);
  });
});
