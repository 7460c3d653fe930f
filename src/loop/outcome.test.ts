import { describe, expect, it } from "vitest";
import { isMaskedTruncation } from "./outcome.js";

/** An episode row as the store holds it: the transcript names how it ended. */
const ended = (outcome: string | undefined, failure: string | null = null, terminated = false) => ({
  failure,
  transcript: { ...(outcome ? { outcome } : {}), steps: [{ terminated }] },
});

// Reference: spade/slime/spade_rollout.py, --spade-compact-filter (cmd/tool_use/_train_spade_blend.sh):
// every sample with Sample.Status.TRUNCATED (the episode's TRUNCATED or TIMEOUT) gets loss mask 0.
describe("isMaskedTruncation", () => {
  it("masks truncated and overflowed episodes under mask only", () => {
    const rows: Array<[string, ReturnType<typeof ended>, boolean, boolean]> = [
      // what ended, row, masked under mask, masked under train
      ["terminated", ended("terminated"), false, false],
      ["truncated (turn cap)", ended("truncated"), true, false],
      ["overflow (context full)", ended("overflow"), true, false],
      ["dropped (never scored)", ended("dropped", "E_SANDBOX_CRASH"), false, false],
      ["old row, last step not terminated", ended(undefined), true, false],
      ["old row, last step terminated", ended(undefined, null, true), false, false],
      ["old row, failed", ended(undefined, "E_POLICY_HTTP"), false, false],
    ];
    for (const [what, row, mask, train] of rows) {
      expect([what, isMaskedTruncation({ truncatedEpisodes: "mask" }, row)]).toEqual([what, mask]);
      expect([what, isMaskedTruncation({ truncatedEpisodes: "train" }, row)]).toEqual([
        what,
        train,
      ]);
      // A run stored before the setting existed trains them, as it did.
      expect([what, isMaskedTruncation({}, row)]).toEqual([what, false]);
    }
  });
});
