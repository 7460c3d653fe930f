// The one transcript form: every step's fields, the masked flag only where set, messages on request.
import { describe, expect, it } from "vitest";
import { makeAction } from "../env/index.js";
import type { Episode } from "./episode.js";
import { episodeTranscript } from "./transcript.js";

const episode: Episode = {
  seed: 3,
  hinted: false,
  firstObservation: "Guess.",
  steps: [
    {
      action: makeAction("1"),
      observation: "bad call",
      reward: 0,
      terminated: false,
      truncated: false,
      toolResults: [],
      info: {},
      masked: true,
    },
    {
      action: makeAction("\\boxed{2}"),
      observation: "yes",
      reward: 1,
      terminated: true,
      truncated: false,
      toolResults: [{ id: "c1", content: "ok" }],
      info: { tries: 2 },
    },
  ],
  return: 1,
  success: true,
  turns: 2,
  outcome: "terminated",
  maskedTurns: [0],
  failure: null,
  failureStage: null,
  failureCode: null,
  trace: { model: "m", messages: [{ role: "user", content: "Guess." }], samplesByTurn: [] },
};

describe("episodeTranscript", () => {
  it("records every step with its info, and `masked` only on masked turns", () => {
    const t = episodeTranscript(episode, { messages: false });
    expect(t).toEqual({
      firstObservation: "Guess.",
      outcome: "terminated",
      maskedTurns: [0],
      steps: episode.steps, // every field of every step, as the episode holds it
    });
    expect("masked" in (t.steps[1] as object)).toBe(false);
  });

  it("adds the agent's messages when asked, and only when the agent kept a trace", () => {
    expect(episodeTranscript(episode, { messages: true }).messages).toEqual([
      { role: "user", content: "Guess." },
    ]);
    expect(
      "messages" in episodeTranscript({ ...episode, trace: undefined }, { messages: true }),
    ).toBe(false);
  });
});
