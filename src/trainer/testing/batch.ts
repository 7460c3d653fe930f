/**
 * @module trainer/testing/batch
 * TEST FIXTURE: a hand-made training batch (one agent episode, one designer completion) for the
 * trainer's tests.
 */
import type { Json } from "../../env/index.js";
import type { DesignRow, EpisodeRow } from "../../store/index.js";
import type { TrainSample } from "../types.js";

/** One agent episode (targets 2..6, sampled at 3, 4 and 6: two sampled turns) and one designer completion (target 7 sampled). */
export function handMadeBatch(): TrainSample[] {
  const trace = {
    stream: {
      tokenIds: [1, 2, 3, 4, 5, 6],
      lossMask: [0, 0, 1, 1, 0, 1],
      logprobs: [0, 0, -0.5, -0.25, 0, -1],
    },
    turns: [],
  } as unknown as Json;
  const episode = {
    step: 1,
    envId: "lib-a",
    idx: 0,
    seed: 3,
    hinted: false,
    return: 1,
    success: true,
    turns: 2,
    failure: null,
    failureCode: null,
    rewards: [1],
    transcript: null,
    trace,
  } as EpisodeRow;
  const design = {
    step: 0,
    slot: 0,
    seq: 0,
    trainable: true,
    tokens: { promptTokenIds: [9, 8], tokenIds: [7], logprobs: [-2] },
  } as unknown as DesignRow;
  return [
    { role: "agent", ref: "lib-a/0", reward: 1, advantage: 2, episode },
    { role: "designer", ref: "0/0/0", reward: 0, advantage: -0.5, design },
  ];
}
