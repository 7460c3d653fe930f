import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeTinkerOptions, FakeTinkerServer } from "../../test/fakes/tinker-server.js";
import { Limiter } from "./limiter.js";
import { parseSampleResponse, tinkerSampler, type TinkerSamplerOptions } from "./tinker.js";
import { recordingClock } from "./testing/clock.js";
import { fakeTinkerSampler } from "./testing/fake-tinker.js";

const ECHO: FakeTinkerOptions["sample"] = ({ promptTokens }) => ({
  sequences: [
    { tokens: [promptTokens.length, 7, 0], logprobs: [-0.5, -0.25, -0.125], stop_reason: "stop" },
  ],
});

let server: FakeTinkerServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  fake: Partial<FakeTinkerOptions> = {},
  sampler: Partial<TinkerSamplerOptions> = {},
) {
  const clock = recordingClock();
  const started = await fakeTinkerSampler(
    { sample: ECHO, ...fake },
    { clock, limiter: new Limiter(4), retry: { maxRetries: 2 }, ...sampler },
  );
  server = started.server;
  return { server, clock, client: started.sampler };
}

const REQUEST = { promptTokenIds: [1, 2, 3], maxTokens: 16, stopTokenIds: [0, 9] };
/**
 * The whole `asample` body of REQUEST, first in a sampling session (trainer/sdk-crosscheck.test.ts
 * compares SPADE's bodies with the official SDK's).
 */
const ASAMPLE_BODY: unknown = JSON.parse(
  readFileSync(new URL("./testing/asample-body.json", import.meta.url), "utf8"),
);

describe("tinkerSampler", () => {
  it("samples through a sampling session: asample, then retrieve_future through try_again and a long-poll 408", async () => {
    const { server, clock, client } = await setup(
      { tryAgainPolls: 2, longPollTimeouts: 1, apiKey: "k-123" },
      { apiKeyEnv: "TINKER_KEY", environment: { TINKER_KEY: "k-123" }, pollIntervalMs: 40 },
    );
    expect(await client.sample(REQUEST)).toEqual([
      { tokenIds: [3, 7, 0], logprobs: [-0.5, -0.25, -0.125], stopReason: "stop" },
    ]);
    await client.sample({ ...REQUEST, promptTokenIds: [5], temperature: 0.7, seed: 3 });
    expect(server.requests.map((r) => r.path.replace("/api/v1/", ""))).toEqual([
      "client/config",
      "create_session",
      "create_sampling_session",
      "asample",
      ...Array(4).fill("retrieve_future"),
      "asample",
      ...Array(4).fill("retrieve_future"),
    ]);
    expect(server.requestsTo("/api/v1/create_sampling_session")[0]!.body).toEqual({
      session_id: "session_0",
      sampling_session_seq_id: 0,
      base_model: "Org/Tiny-1B",
      type: "create_sampling_session",
    });
    const [first, second] = server.requestsTo("/api/v1/asample");
    expect(first!.body).toEqual(ASAMPLE_BODY);
    expect(second!.body).toMatchObject({
      seq_id: 1,
      sampling_params: {
        max_tokens: 16,
        stop: [0, 9],
        temperature: 0.7,
        seed: 3,
        top_k: -1,
        top_p: 1,
      },
    });
    expect(server.requestsTo("/api/v1/retrieve_future")[0]!.body).toEqual({
      request_id: "2",
      allow_metadata_only: true,
    });
    expect(server.requestsTo("/api/v1/retrieve_future")[0]!.headers.accept).toBe(
      "application/x-protobuf",
    );
    expect(first!.headers["x-api-key"]).toBe("k-123");
    expect(clock.sleeps).toEqual([40, 40, 40, 40]);
  });

  it("retries a 429 on asample (honouring retry-after) and a 500 on retrieve_future", async () => {
    const faults = [
      { path: "/api/v1/asample", status: 429, headers: { "retry-after": "3" } },
      { path: "/api/v1/retrieve_future", status: 500 },
    ];
    const { server, clock, client } = await setup({ faults });
    expect(await client.sample(REQUEST)).toEqual([
      { tokenIds: [3, 7, 0], logprobs: [-0.5, -0.25, -0.125], stopReason: "stop" },
    ]);
    expect(server.requestsTo("/api/v1/asample")).toHaveLength(2);
    expect(server.requestsTo("/api/v1/retrieve_future")).toHaveLength(2);
    expect(clock.sleeps).toEqual([3000, 500]);
    // One idempotency key covers the attempts of one submission.
    const keys = server.requestsTo("/api/v1/asample").map((r) => r.headers["x-idempotency-key"]);
    expect(keys[0]).toBe(keys[1]);
  });

  it("names base_model in every asample without a sampling session", async () => {
    const { server, client } = await setup(
      {},
      { samplingSession: false, sampling: { temperature: 1, topP: 0.9, topK: 20 } },
    );
    await client.sample({ ...REQUEST, numSamples: 2 });
    expect(server.requests.map((r) => r.path)).toEqual([
      "/api/v1/asample",
      "/api/v1/retrieve_future",
    ]);
    expect(server.requests[0]!.body).toMatchObject({
      base_model: "Org/Tiny-1B",
      num_samples: 2,
      sampling_params: { max_tokens: 16, stop: [0, 9], temperature: 1, top_p: 0.9, top_k: 20 },
    });
    expect(server.requests[0]!.body).not.toHaveProperty("sampling_session_id");
  });

  it("submits again when the server dropped a result (HTTP 410)", async () => {
    const { server, client } = await setup({
      faults: [{ path: "/api/v1/retrieve_future", status: 410 }],
    });
    expect(await client.sample(REQUEST)).toHaveLength(1);
    expect(server.requestsTo("/api/v1/asample").map((r) => r.body.seq_id)).toEqual([0, 1]);
  });

  it("fails with E_POLICY_HTTP when the future failed (e.g. a base model the server does not serve)", async () => {
    const { client } = await setup({}, { baseModel: "org/tiny-1b" });
    await expect(client.sample(REQUEST)).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringContaining('(user): base model "org/tiny-1b" is not served'),
    });
  });

  it("does not retry a 400 and says how many attempts were made", async () => {
    const { server, client } = await setup({ faults: [{ path: "/api/v1/asample", status: 400 }] });
    await expect(client.sample(REQUEST)).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringMatching(/HTTP 400.*\(1 attempt\)/),
    });
    expect(server.requestsTo("/api/v1/asample")).toHaveLength(1);
  });

  it("gives up after maxRetries on a server that keeps failing", async () => {
    const { server, client } = await setup({
      faults: [{ path: "/api/v1/create_session", status: 503, times: 10 }],
    });
    await expect(client.sample(REQUEST)).rejects.toMatchObject({
      code: "E_POLICY_HTTP",
      message: expect.stringContaining("(3 attempts)"),
    });
    expect(server.requestsTo("/api/v1/create_session")).toHaveLength(3);
  });

  it("fails with E_POLICY_OUTPUT on a malformed result, E_CONFIG on bad settings, E_CANCELLED when cancelled", async () => {
    const { client } = await setup({
      sample: () => ({ sequences: [{ tokens: [1, 2], logprobs: [-1], stop_reason: "stop" }] }),
    });
    await expect(client.sample(REQUEST)).rejects.toMatchObject({ code: "E_POLICY_OUTPUT" });
    await expect(client.sample({ ...REQUEST, maxTokens: 0 })).rejects.toMatchObject({
      code: "E_CONFIG",
    });
    await expect(client.sample({ ...REQUEST, signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: "E_CANCELLED",
    });
    expect(() =>
      tinkerSampler({
        baseURL: "http://127.0.0.1:1",
        baseModel: "m",
        apiKeyEnv: "SPADE_UNSET_KEY",
        environment: {},
      }),
    ).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
  });

  it("sends session heartbeats until closed", async () => {
    const { server, client } = await setup({}, { heartbeatMs: 10 });
    await client.sample(REQUEST);
    // At least two beats, however late a loaded machine runs the timer.
    const deadline = Date.now() + 5000;
    while (server.requestsTo("/api/v1/session_heartbeat").length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    client.close();
    const beats = server.requestsTo("/api/v1/session_heartbeat").length;
    expect(beats).toBeGreaterThanOrEqual(2);
    expect(server.requestsTo("/api/v1/session_heartbeat")[0]!.body).toEqual({
      session_id: "session_0",
      type: "session_heartbeat",
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(server.requestsTo("/api/v1/session_heartbeat").length).toBeLessThanOrEqual(beats + 1);
  });
});

describe("parseSampleResponse", () => {
  it("reads sequences with and without logprobs and rejects other shapes", () => {
    expect(
      parseSampleResponse({
        sequences: [
          { tokens: [4], logprobs: null, stop_reason: "length" },
          { tokens: [5, 6], logprobs: [-1, -2], stop_reason: "stop" },
        ],
      }),
    ).toEqual([
      { tokenIds: [4], logprobs: null, stopReason: "length" },
      { tokenIds: [5, 6], logprobs: [-1, -2], stopReason: "stop" },
    ]);
    for (const bad of [
      null,
      {},
      { sequences: [] },
      { sequences: [{ tokens: [1.5] }] },
      { sequences: [{ tokens: "12" }] },
    ]) {
      expect(() => parseSampleResponse(bad)).toThrow(
        expect.objectContaining({ code: "E_POLICY_OUTPUT" }),
      );
    }
  });
});
