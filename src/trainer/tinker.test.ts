import { afterEach, describe, expect, it } from "vitest";
import {
  startFakeTinkerServer,
  type FakeSampleRequest,
  type FakeTinkerOptions,
  type FakeTinkerServer,
} from "../../test/fakes/tinker-server.js";
import { Limiter, TinkerHttp, tinkerSampler } from "../policy/index.js";
import { sequenceDatum } from "./datums.js";
import { episodeRow, handMadeBatch } from "./testing/batch.js";
import { TinkerTrainingClient, type TinkerTrainingOptions } from "./tinker.js";
import { DEFAULT_ADAM, TinkerTrainer } from "./tinker-trainer.js";
import { recordingClock } from "../policy/testing/clock.js";
import type { Json } from "../env/index.js";
import type { TrainSample } from "./types.js";
import { closedAfterEach } from "../../test/cleanup.js";

const BASE = "Org/Tiny-1B";
const sampled: FakeSampleRequest[] = [];
const startServer = closedAfterEach(startFakeTinkerServer);
afterEach(() => {
  sampled.length = 0;
});

async function setup(
  fake: Partial<FakeTinkerOptions> = {},
  training: Partial<TinkerTrainingOptions> = {},
) {
  const sample: FakeTinkerOptions["sample"] = (request) => {
    sampled.push(request);
    return { sequences: [{ tokens: [5, 6], logprobs: [-0.5, -0.25], stop_reason: "stop" }] };
  };
  const server = await startServer({ baseModel: BASE, sample, training: true, ...fake });
  const clock = recordingClock();
  const http = new TinkerHttp({
    baseURL: server.baseURL,
    clock,
    heartbeatMs: 0,
    retry: { maxRetries: 2 },
    pollIntervalMs: 25,
  });
  const client = new TinkerTrainingClient(http, {
    baseModel: BASE,
    loraRank: 8,
    loraSeed: 7,
    ...training,
  });
  return { server, clock, http, client };
}

/** The JSON requests to `path` (the fake, like SkyRL, refuses protobuf bodies with 422; their body records as null). */
const jsonTo = (s: FakeTinkerServer, path: string) =>
  s.requestsTo(path).filter((r) => r.body !== null);

const paths = (s: FakeTinkerServer) => s.requests.map((r) => r.path.replace("/api/v1/", ""));
const t = (data: number[], dtype: "int64" | "float32") => ({ data, dtype, shape: [data.length] });

describe("TinkerTrainingClient", () => {
  it("speaks every call of the training protocol with increasing seq ids, through try_again polls", async () => {
    const { server, clock, client } = await setup({ tryAgainPolls: 1 });
    const datum = sequenceDatum(
      { tokenIds: [1, 2, 3], lossMask: [0, 1, 1], logprobs: [0, -0.5, -0.25] },
      1,
    );
    const out = await client.forwardBackward([datum], "importance_sampling");
    expect(out).toEqual({
      lossFnOutputs: [
        { logprobs: t([-0.5, -0.25], "float32"), elementwise_loss: t([-1, -1], "float32") },
      ],
      metrics: { "loss:sum": -2 },
    });
    expect(await client.optimStep(DEFAULT_ADAM)).toEqual({ "datums:sum": 1 });
    expect(await client.saveState("s-1")).toBe("tinker://model_0/weights/s-1");
    expect(await client.saveWeightsForSampler("s-1")).toBe("tinker://model_0/sampler_weights/s-1");
    await client.loadState("tinker://model_0/weights/s-1", { optimizer: true });

    // No /client/config on this server (HTTP 404: an older server); protobuf refused once, then JSON.
    expect(paths(server)).toEqual([
      "client/config",
      "create_session",
      "create_model",
      "retrieve_future",
      "retrieve_future",
      "forward_backward",
      ...[
        "forward_backward",
        "optim_step",
        "save_weights",
        "save_weights_for_sampler",
        "load_weights",
      ].flatMap((p) => [p, "retrieve_future", "retrieve_future"]),
    ]);
    expect(client.forwardBackwardWire).toBe("json");
    expect(server.requestsTo("/api/v1/forward_backward")[0]!.headers["content-type"]).toBe(
      "application/x-protobuf",
    );
    expect(server.requestsTo("/api/v1/create_model")[0]!.body).toEqual({
      session_id: "session_0",
      model_seq_id: 0,
      base_model: BASE,
      lora_config: { rank: 8, seed: 7, train_mlp: true, train_attn: true, train_unembed: true },
      optimizer_config: { type: "adamw" },
      type: "create_model",
    });
    expect(jsonTo(server, "/api/v1/forward_backward")).toHaveLength(1);
    expect(jsonTo(server, "/api/v1/forward_backward")[0]!.body).toEqual({
      forward_backward_input: { data: [datum], loss_fn: "importance_sampling" },
      model_id: "model_0",
      seq_id: 1,
    });
    expect(server.requestsTo("/api/v1/optim_step")[0]!.body).toEqual({
      adam_params: {
        learning_rate: 1e-6,
        beta1: 0.9,
        beta2: 0.98,
        eps: 1e-8,
        weight_decay: 0.1,
        grad_clip_norm: 0,
      },
      model_id: "model_0",
      seq_id: 2,
      type: "optim_step",
    });
    expect(server.requestsTo("/api/v1/save_weights")[0]!.body).toEqual({
      model_id: "model_0",
      path: "s-1",
      seq_id: 3,
      overwrite: false,
      type: "save_weights",
    });
    expect(server.requestsTo("/api/v1/save_weights_for_sampler")[0]!.body).toEqual({
      model_id: "model_0",
      path: "s-1",
      kind: "snapshot",
      seq_id: 4,
      type: "save_weights_for_sampler",
    });
    expect(server.requestsTo("/api/v1/retrieve_future")[0]!.body).toEqual({
      request_id: "1",
      allow_metadata_only: true,
    });
    expect(server.requestsTo("/api/v1/load_weights")[0]!.body).toEqual({
      model_id: "model_0",
      path: "tinker://model_0/weights/s-1",
      seq_id: 5,
      optimizer: true,
      type: "load_weights",
    });
    expect(clock.sleeps).toEqual(Array(6).fill(25));
    expect(server.training!.models.get("model_0")).toMatchObject({
      optimSteps: 1,
      lastSeqId: 5,
      loraRank: 8,
    });
  });

  it("retries an HTTP 500 on forward_backward with the same seq id and idempotency key", async () => {
    const { server, clock, client } = await setup(
      {
        faults: [
          { path: "/api/v1/forward_backward", status: 500 },
          { path: "/api/v1/retrieve_future", status: 503 },
        ],
      },
      { forwardBackwardEncoding: "json" },
    );
    const datum = sequenceDatum({ tokenIds: [1, 2], lossMask: [0, 1], logprobs: [0, -1] }, 0.5);
    expect(
      (
        await client.forwardBackward([datum], "ppo", {
          clip_low_threshold: 0.8,
          clip_high_threshold: 1.28,
        })
      ).metrics,
    ).toEqual({ "loss:sum": -0.5 });
    const posts = server.requestsTo("/api/v1/forward_backward");
    expect(posts.map((p) => p.body.seq_id)).toEqual([1, 1]);
    expect(posts[0]!.headers["x-idempotency-key"]).toBe(posts[1]!.headers["x-idempotency-key"]);
    expect(posts[1]!.body.forward_backward_input.loss_fn_config).toEqual({
      clip_low_threshold: 0.8,
      clip_high_threshold: 1.28,
    });
    expect(clock.sleeps).toEqual([500, 500]);
  });

  it("fails with E_POLICY_HTTP when the engine refuses a request, naming its message; a refused request takes no seq id", async () => {
    const { server, client } = await setup({}, { forwardBackwardEncoding: "json" });
    const bad = { ...sequenceDatum({ tokenIds: [1, 2], lossMask: [0, 1], logprobs: [0, -1] }, 1) };
    bad.loss_fn_inputs = { ...bad.loss_fn_inputs, advantages: t([1, 1], "float32") };
    await expect(client.forwardBackward([bad], "importance_sampling")).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringContaining("advantages must be float32 TensorData of shape [1]"),
    });
    await expect(
      client.loadState("tinker://model_9/weights/none", { optimizer: true }),
    ).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringContaining("Checkpoint not found"),
    });
    // Refused submissions take no seq id: the model's ids stay gap-free.
    expect(server.requestsTo("/api/v1/load_weights")[0]!.body.seq_id).toBe(1);
  });
});

describe("TinkerTrainer", () => {
  it("sends the exact datums of a hand-made batch in ONE forward_backward, then optim_step and both saves; reports exact metrics", async () => {
    const { server, client } = await setup();
    const trainer = new TinkerTrainer({ client, adam: { learningRate: 2e-5 } });
    const result = await trainer.train(4, handMadeBatch());
    expect(jsonTo(server, "/api/v1/forward_backward")).toHaveLength(1);
    expect(jsonTo(server, "/api/v1/forward_backward")[0]!.body.forward_backward_input.data).toEqual(
      [
        {
          model_input: { chunks: [{ type: "encoded_text", tokens: [1, 2, 3, 4, 5] }] },
          loss_fn_inputs: {
            target_tokens: t([2, 3, 4, 5, 6], "int64"),
            logprobs: t([0, -0.5, -0.25, 0, -1], "float32"),
            advantages: t([0, 2, 2, 0, 2], "float32"),
          },
        },
        {
          model_input: { chunks: [{ type: "encoded_text", tokens: [9, 8] }] },
          loss_fn_inputs: {
            target_tokens: t([8, 7], "int64"),
            logprobs: t([0, -2], "float32"),
            advantages: t([0, -0.5], "float32"),
          },
        },
      ],
    );
    expect(server.requestsTo("/api/v1/optim_step")[0]!.body.adam_params.learning_rate).toBe(2e-5);
    expect(paths(server).filter((p) => p !== "retrieve_future")).toEqual([
      "client/config",
      "create_session",
      "create_model",
      "forward_backward",
      "forward_backward",
      "optim_step",
      "save_weights",
      "save_weights_for_sampler",
    ]);
    // Loss: -(2 + 2 + 2) for the agent, -(-0.5) for the designer; every ratio is 1 on the fake.
    expect(result).toEqual({
      metrics: {
        "loss:sum": -5.5,
        loss: -5.5,
        datums: 2,
        agentDatums: 1,
        designerDatums: 1,
        trainedTokens: 4,
        "agentLogRatio:mean": 0,
        "designerLogRatio:mean": 0,
        "optim/datums:sum": 2,
      },
      checkpoint: {
        step: 4,
        samplerPath: "tinker://model_0/sampler_weights/spade-step-4",
        statePath: "tinker://model_0/weights/spade-step-4",
      },
    });
  });

  it("sends ppo with the reference's clip thresholds; an empty batch trains nothing", async () => {
    const { server, client } = await setup();
    const trainer = new TinkerTrainer({ client, loss: "ppo", saveState: false });
    expect(await trainer.train(0, [])).toEqual({ metrics: { datums: 0 }, checkpoint: null });
    expect(server.requests).toEqual([]);
    const result = await trainer.train(1, handMadeBatch());
    expect(
      jsonTo(server, "/api/v1/forward_backward")[0]!.body.forward_backward_input,
    ).toMatchObject({
      loss_fn: "ppo",
      loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
    });
    expect(server.requestsTo("/api/v1/save_weights")).toEqual([]);
    expect(result.checkpoint).toEqual({
      step: 1,
      samplerPath: "tinker://model_0/sampler_weights/spade-step-1",
      statePath: null,
    });
    await expect(new TinkerTrainer({ client }).restore(result.checkpoint!)).rejects.toMatchObject({
      code: "E_CONFIG",
    });
  });

  it("restores a stored checkpoint into a new model (weights and optimiser state), and samples from the saved weights", async () => {
    const { server, http, client } = await setup();
    const first = await new TinkerTrainer({ client }).train(0, handMadeBatch());
    // A new process: a new model loads the state; its seq ids start again at 1.
    const resumedClient = new TinkerTrainingClient(http, { baseModel: BASE });
    const resumed = new TinkerTrainer({ client: resumedClient });
    await resumed.restore(first.checkpoint!);
    expect(resumed.checkpoint).toEqual(first.checkpoint);
    expect(server.requestsTo("/api/v1/load_weights")[0]!.body).toMatchObject({
      model_id: "model_1",
      path: "tinker://model_0/weights/spade-step-0",
      seq_id: 1,
      optimizer: true,
    });
    expect(server.training!.models.get("model_1")!.optimSteps).toBe(1);
    const second = await resumed.train(1, handMadeBatch());
    expect(second.checkpoint!.samplerPath).toBe("tinker://model_1/sampler_weights/spade-step-1");

    const sampler = tinkerSampler({
      baseURL: server.baseURL,
      baseModel: BASE,
      modelPath: second.checkpoint!.samplerPath,
      http,
      limiter: new Limiter(2),
    });
    expect(
      await sampler.sample({ promptTokenIds: [1, 2], maxTokens: 4, stopTokenIds: [0] }),
    ).toEqual([{ tokenIds: [5, 6], logprobs: [-0.5, -0.25], stopReason: "stop" }]);
    expect(server.requestsTo("/api/v1/create_sampling_session").at(-1)!.body).toMatchObject({
      model_path: "tinker://model_1/sampler_weights/spade-step-1",
    });
    expect(sampled.map((s) => s.model)).toEqual(["tinker://model_1/sampler_weights/spade-step-1"]);
  });

  /**
   * An agent sample whose stream is a prompt token then `n` sampled tokens (targets: `n` trained),
   * the sampler's logprob of token i being -i / 8.
   */
  const trainedTokens = (ref: string, n: number, advantage: number): TrainSample => {
    const tokenIds = Array.from({ length: n + 1 }, (_, i) => 10 + i);
    const trace = {
      stream: {
        tokenIds,
        lossMask: tokenIds.map((_, i) => (i === 0 ? 0 : 1)),
        logprobs: tokenIds.map((_, i) => (i === 0 ? 0 : -i / 8)),
      },
      turns: [],
    } as unknown as Json;
    return { role: "agent", ref, reward: advantage, advantage, episode: episodeRow(trace) };
  };
  const advantagesSent = (server: FakeTinkerServer) =>
    jsonTo(server, "/api/v1/forward_backward")[0]!.body.forward_backward_input.data.map(
      (d: { loss_fn_inputs: { advantages: { data: number[] } } }) =>
        d.loss_fn_inputs.advantages.data,
    );
  const seven = (x: number) => Array.from({ length: 7 }, () => x);

  it("token-sum (the default): samples of 3 and 7 trained tokens weigh 3 and 7; no clipping is asked", async () => {
    const { server, client } = await setup();
    const trainer = new TinkerTrainer({ client, loss: "ppo" });
    const result = await trainer.train(
      0,
      [trainedTokens("a/0", 3, 1), trainedTokens("b/0", 7, 1)],
      {
        batchSize: 3,
      },
    );
    expect(advantagesSent(server)).toEqual([[1, 1, 1], seven(1)]);
    // The fake's ratios are 1: the loss is minus the sum of the advantages, 3 + 7.
    expect([result.metrics.loss, result.metrics.batchSize]).toEqual([-10, undefined]);
    expect(server.requestsTo("/api/v1/optim_step")[0]!.body.adam_params.grad_clip_norm).toBe(0);
  });

  it("sample-mean: a'_t = a / (G n_s), so each sample weighs 1 / G whatever its length; grad_clip_norm as set", async () => {
    const { server, client } = await setup();
    const trainer = new TinkerTrainer({
      client,
      loss: "ppo",
      lossAggregation: "sample-mean",
      adam: { gradClipNorm: 1 },
    });
    // G = 3: a third sample of the step was left out with a zero loss mask (not handed over).
    const result = await trainer.train(
      0,
      [trainedTokens("a/0", 3, 1), trainedTokens("b/0", 7, 1)],
      {
        batchSize: 3,
      },
    );
    expect(advantagesSent(server)).toEqual([[1 / 9, 1 / 9, 1 / 9], seven(1 / 21)]);
    // Slime's loss: -(mean 1 + mean 1 + 0) / 3 = -2/3; each sample contributes 1/3.
    expect(result.metrics.loss).toBeCloseTo(-2 / 3, 6);
    expect(result.metrics.batchSize).toBe(3);
    expect(result.metrics.trainedTokens).toBe(10);
    expect(server.requestsTo("/api/v1/optim_step")[0]!.body.adam_params).toEqual({
      learning_rate: 1e-6,
      beta1: 0.9,
      beta2: 0.98,
      eps: 1e-8,
      weight_decay: 0.1,
      grad_clip_norm: 1,
    });
  });

  it("sample-mean without a batch size divides by the samples handed over; both roles alike", async () => {
    const { server, client } = await setup();
    const trainer = new TinkerTrainer({ client, lossAggregation: "sample-mean" });
    await trainer.train(0, handMadeBatch());
    // Agent: 3 trained targets of advantage 2 -> 2 / (2 x 3); designer: 1 of -0.5 -> -0.5 / (2 x 1).
    expect(advantagesSent(server)).toEqual([
      [0, 2 / 6, 2 / 6, 0, 2 / 6],
      [0, -0.5 / 2],
    ]);
  });

  it("sample-mean divides the KL-folded advantages, so the KL term is weighted per sample too", async () => {
    const { server, client } = await setup();
    // TEST DOUBLE: the base model's logprob of every token is -1 (the first, the prompt's, is dropped).
    const baseLogprobs = async (tokenIds: readonly number[]) => tokenIds.map(() => -1);
    const trainer = new TinkerTrainer({
      client,
      lossAggregation: "sample-mean",
      kl: { coef: 0.5, baseLogprobs },
    });
    const result = await trainer.train(0, [trainedTokens("a/0", 1, 1), trainedTokens("b/0", 2, 1)]);
    // d = log q - log p_base: (-1/8 + 1) for a; (-1/8 + 1), (-2/8 + 1) for b; mean m = 19/24.
    // Folded: 1 + 0.5 (m - d), then divided by G n_s = 2 x 1 and 2 x 2.
    const m = (7 / 8 + 7 / 8 + 6 / 8) / 3;
    const folded = (d: number) => 1 + 0.5 * (m - d);
    const sent = advantagesSent(server) as number[][];
    expect(sent[0]![0]).toBeCloseTo(folded(7 / 8) / 2, 6);
    expect(sent[1]![0]).toBeCloseTo(folded(7 / 8) / 4, 6);
    expect(sent[1]![1]).toBeCloseTo(folded(6 / 8) / 4, 6);
    expect(result.metrics["kl:mean"]).toBeCloseTo(m, 12);
  });

  it("refuses a negative gradClipNorm and a batch smaller than its samples with coded errors", async () => {
    const { client } = await setup();
    expect(() => new TinkerTrainer({ client, adam: { gradClipNorm: -1 } })).toThrowError(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    await expect(
      new TinkerTrainer({ client, lossAggregation: "sample-mean" }).train(0, handMadeBatch(), {
        batchSize: 1,
      }),
    ).rejects.toMatchObject({ code: "E_RL_INPUT" });
  });
});
