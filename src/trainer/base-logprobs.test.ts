import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../../test/cleanup.js";
import { startFakeTinkerServer, type FakeSampleResult } from "../../test/fakes/tinker-server.js";
import { TinkerHttp } from "../policy/index.js";
import { parsePromptLogprobs, tinkerBaseLogprobs } from "./base-logprobs.js";
import { TinkerTrainingClient } from "./tinker.js";
import { handMadeBatch } from "./testing/batch.js";
import { TinkerTrainer } from "./tinker-trainer.js";
import { INSTANT_CLOCK } from "../policy/testing/clock.js";

const BASE = "Org/Tiny-1B";
const startServer = closedAfterEach(startFakeTinkerServer);

/** The base model's prompt logprobs the fake engine answers, by prompt. */
const BASE_LOGPROBS: Record<string, Array<number | null>> = {
  "1,2,3,4,5,6": [null, -9, -1, -0.25, -9, -0.5],
  "9,8,7": [null, -5, -2],
};

async function setup() {
  const server = await startServer({
    baseModel: BASE,
    training: true,
    sample: (request) =>
      ({
        sequences: [{ tokens: [0], logprobs: [-1], stop_reason: "length" }],
        prompt_logprobs: request.body.prompt_logprobs
          ? BASE_LOGPROBS[request.promptTokens.join(",")]
          : null,
      }) as FakeSampleResult,
  });
  const http = new TinkerHttp({
    baseURL: server.baseURL,
    clock: INSTANT_CLOCK,
    heartbeatMs: 0,
    retry: { maxRetries: 0 },
    pollIntervalMs: 10,
  });
  // JSON bodies, so the test reads the advantages sent (the fake engine, like SkyRL, speaks JSON only).
  return {
    server,
    http,
    client: new TinkerTrainingClient(http, {
      baseModel: BASE,
      loraRank: 8,
      loraSeed: 7,
      forwardBackwardEncoding: "json",
    }),
  };
}

const batch = handMadeBatch;

describe("base-model logprobs (Tinker's compute_logprobs)", () => {
  it("asks the base model for prompt logprobs with one token to sample, and aligns them to the tokens", async () => {
    const { server, http } = await setup();
    expect(await tinkerBaseLogprobs(http, BASE)([9, 8, 7])).toEqual([0, -5, -2]);
    const body = server.requestsTo("/api/v1/asample")[0]!.body;
    expect(body).toMatchObject({
      base_model: BASE,
      num_samples: 1,
      prompt_logprobs: true,
      sampling_params: { max_tokens: 1 },
      prompt: { chunks: [{ type: "encoded_text", tokens: [9, 8, 7] }] },
    });
    http.close();
  });

  it("refuses an answer without one logprob per token (E_POLICY_OUTPUT)", () => {
    expect(parsePromptLogprobs({ prompt_logprobs: [null, -1] }, 2)).toEqual([0, -1]);
    for (const body of [
      { prompt_logprobs: null },
      { prompt_logprobs: [null] },
      { prompt_logprobs: [null, "x"] },
      null,
    ]) {
      expect(() => parsePromptLogprobs(body, 2)).toThrow(
        expect.objectContaining({ code: "E_POLICY_OUTPUT" }),
      );
    }
  });
});

describe("TinkerTrainer with a KL penalty (klCoef)", () => {
  it("folds coef (m - d_t) into the sampled targets' advantages before forward_backward", async () => {
    const { server, http, client } = await setup();
    const trainer = new TinkerTrainer({
      client,
      loss: "ppo",
      saveState: false,
      kl: { coef: 0.1, baseLogprobs: tinkerBaseLogprobs(http, BASE) },
    });
    const result = await trainer.train(0, batch());
    // Agent targets 3, 4, 6: d = -0.5 - -1 = 0.5, -0.25 - -0.25 = 0, -1 - -0.5 = -0.5; designer target 7: -2 - -2 = 0.
    // m = 0 over the 4 sampled targets: 2 - 0.05, 2, 2 + 0.05; the designer's -0.5 stays.
    const data = server.requestsTo("/api/v1/forward_backward")[0]!.body.forward_backward_input.data;
    const advantages = data.map(
      (d: { loss_fn_inputs: { advantages: { data: number[] } } }) =>
        d.loss_fn_inputs.advantages.data,
    );
    expect(advantages[0].map((a: number) => Number(a.toFixed(12)))).toEqual([0, 1.95, 2, 0, 2.05]);
    expect(advantages[1]).toEqual([0, -0.5]);
    expect(result.metrics["kl:mean"]).toBeCloseTo(0, 12);
    expect(server.requestsTo("/api/v1/asample").map((r) => r.body.prompt.chunks[0].tokens)).toEqual(
      [
        [1, 2, 3, 4, 5, 6],
        [9, 8, 7],
      ],
    );
    http.close();
  });

  it("asks nothing of the base model with coef 0", async () => {
    const { server, http, client } = await setup();
    const trainer = new TinkerTrainer({
      client,
      saveState: false,
      kl: { coef: 0, baseLogprobs: tinkerBaseLogprobs(http, BASE) },
    });
    const result = await trainer.train(0, batch());
    expect(server.requestsTo("/api/v1/asample")).toEqual([]);
    expect(result.metrics["kl:mean"]).toBeUndefined();
    http.close();
  });
});
