/**
 * @module trainer/testing/batch
 * TEST FIXTURE: stored episode and design rows, and a hand-made training batch (one agent
 * episode, one designer completion) for the trainer's tests.
 */
import type { Json } from "../../env/index.js";
import type { DesignRow, EpisodeRow } from "../../store/index.js";
import type { TrainSample } from "../types.js";

/** A stored episode of lib-a (seed 1, won in two turns) with the given trace. */
export function episodeRow(trace: Json | null, fields: Partial<EpisodeRow> = {}): EpisodeRow {
  return {
    step: 0,
    envId: "lib-a",
    idx: 0,
    seed: 1,
    hinted: false,
    return: 1,
    success: true,
    turns: 2,
    failure: null,
    failureCode: null,
    rewards: [1],
    transcript: null,
    trace,
    ...fields,
  };
}

/** A stored design attempt (step 0, slot 0, trainable, no program) with the given tokens. */
export function designRow(tokens: Json | null): DesignRow {
  return {
    step: 0,
    slot: 0,
    seq: 0,
    attempt: 0,
    repairTurn: 0,
    skill: "Logical Deduction",
    docId: "d",
    prompt: [],
    completion: "x",
    program: null,
    outcome: "no-program",
    report: null,
    duplicateOf: null,
    memoryRefs: null,
    trainable: true,
    tokens,
    envId: null,
  };
}

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
  const episode = episodeRow(trace, { step: 1, seed: 3 });
  const design = designRow({ promptTokenIds: [9, 8], tokenIds: [7], logprobs: [-2] });
  return [
    { role: "agent", ref: "lib-a/0", reward: 1, advantage: 2, episode },
    { role: "designer", ref: "0/0/0", reward: 0, advantage: -0.5, design },
  ];
}
