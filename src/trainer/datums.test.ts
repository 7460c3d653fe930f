import { describe, expect, it } from "vitest";
import { datumsFor, designSequence, episodeSequence, sequenceDatum } from "./datums.js";
import { designRow, episodeRow } from "./testing/batch.js";
import type { TrainSample } from "./types.js";

const t = (data: number[], dtype: "int64" | "float32") => ({ data, dtype, shape: [data.length] });

/** An agent stream: prompt [1 2 3], sampled [4 5] (stop 5), observation [6 7], sampled [8 9], closing [9] masked. */
const STREAM = {
  tokenIds: [1, 2, 3, 4, 5, 6, 7, 8, 9],
  lossMask: [0, 0, 0, 1, 1, 0, 0, 1, 0],
  logprobs: [0, 0, 0, -0.5, -0.25, 0, 0, -1, 0],
};

describe("sequenceDatum", () => {
  it.each([
    {
      name: "an agent stream: advantages and logprobs on sampled targets only",
      sequence: STREAM,
      advantage: 1.5,
      input: [1, 2, 3, 4, 5, 6, 7, 8],
      targets: [2, 3, 4, 5, 6, 7, 8, 9],
      logprobs: [0, 0, -0.5, -0.25, 0, 0, -1, 0],
      advantages: [0, 0, 1.5, 1.5, 0, 0, 1.5, 0],
    },
    {
      name: "a negative advantage leaves masked targets at +0",
      sequence: { tokenIds: [7, 8, 9], lossMask: [0, 1, 1], logprobs: [0, -0.1, -0.2] },
      advantage: -0.75,
      input: [7, 8],
      targets: [8, 9],
      logprobs: [-0.1, -0.2],
      advantages: [-0.75, -0.75],
    },
    {
      name: "a zero advantage (an invalid design centred with its skill) is still a datum",
      sequence: { tokenIds: [1, 2, 3], lossMask: [0, 0, 1], logprobs: [0, 0, -2] },
      advantage: 0,
      input: [1, 2],
      targets: [2, 3],
      logprobs: [0, -2],
      advantages: [0, 0],
    },
  ])("$name", ({ sequence, advantage, input, targets, logprobs, advantages }) => {
    const datum = sequenceDatum(sequence, advantage);
    expect(datum).toEqual({
      model_input: { chunks: [{ type: "encoded_text", tokens: input }] },
      loss_fn_inputs: {
        target_tokens: t(targets, "int64"),
        logprobs: t(logprobs, "float32"),
        advantages: t(advantages, "float32"),
      },
    });
    expect(datum.loss_fn_inputs.advantages.data.every((a) => !Object.is(a, -0))).toBe(true);
  });

  it("refuses a sequence too short or with misaligned arrays (E_CONFIG), and a non-finite advantage (E_RL_INPUT)", () => {
    expect(() => sequenceDatum({ tokenIds: [1], lossMask: [1], logprobs: [0] }, 1)).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    expect(() => sequenceDatum({ tokenIds: [1, 2], lossMask: [0, 1], logprobs: [0] }, 1)).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    expect(() =>
      sequenceDatum({ tokenIds: [1, 2], lossMask: [0, 1], logprobs: [0, -1] }, Number.NaN),
    ).toThrow(expect.objectContaining({ code: "E_RL_INPUT" }));
  });
});

describe("episodeSequence / designSequence", () => {
  it("reads the token agent's stream", () => {
    expect(
      episodeSequence({ stream: STREAM, turns: [{ logprobs: [-0.5, -0.25] }] }, "lib-a/0"),
    ).toEqual(STREAM);
  });

  it("puts a designer's prompt (mask 0, logprob 0) before its sampled tokens", () => {
    expect(
      designSequence(
        { promptTokenIds: [10, 11, 12], tokenIds: [13, 14], logprobs: [-0.3, -0.6] },
        "0/0/0",
      ),
    ).toEqual({
      tokenIds: [10, 11, 12, 13, 14],
      lossMask: [0, 0, 0, 1, 1],
      logprobs: [0, 0, 0, -0.3, -0.6],
    });
  });

  it.each([
    ["a chat-level episode (no stream)", () => episodeSequence({ messages: [] }, "e/0")],
    [
      "an episode sampled without logprobs",
      () => episodeSequence({ stream: STREAM, turns: [{ logprobs: null }] }, "e/0"),
    ],
    ["a design without tokens", () => designSequence(null, "0/0/0")],
    [
      "a design without logprobs",
      () => designSequence({ promptTokenIds: [1], tokenIds: [2], logprobs: null }, "0/0/0"),
    ],
  ])("E_CONFIG for %s", (_name, read) => {
    expect(read).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
  });
});

describe("datumsFor", () => {
  it("turns both roles into one batch, in sample order, counting the trained targets", () => {
    const samples: TrainSample[] = [
      {
        role: "agent",
        ref: "lib-a/0",
        reward: 1,
        advantage: 1,
        episode: episodeRow({ stream: STREAM, turns: [] }),
      },
      {
        role: "designer",
        ref: "0/0/0",
        reward: 0,
        advantage: -0.5,
        design: designRow({ promptTokenIds: [20, 21], tokenIds: [22, 23], logprobs: [-0.1, -0.2] }),
      },
    ];
    const batch = datumsFor(samples);
    expect(batch.roles).toEqual(["agent", "designer"]);
    expect(batch.masks).toEqual([
      [0, 0, 1, 1, 0, 0, 1, 0],
      [0, 1, 1],
    ]);
    expect(batch.trainedTokens).toBe(5);
    expect(batch.datums[1]).toEqual({
      model_input: { chunks: [{ type: "encoded_text", tokens: [20, 21, 22] }] },
      loss_fn_inputs: {
        target_tokens: t([21, 22, 23], "int64"),
        logprobs: t([0, -0.1, -0.2], "float32"),
        advantages: t([0, -0.5, -0.5], "float32"),
      },
    });
  });

  it("E_CONFIG for a sample without its row", () => {
    expect(() => datumsFor([{ role: "agent", ref: "x/0", reward: 0, advantage: 0 }])).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });
});
