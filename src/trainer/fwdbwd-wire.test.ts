import { afterEach, describe, expect, it } from "vitest";
import { codeOfAsync } from "../../test/assert.js";
import {
  type RecorderOptions,
  startTinkerRecorder,
  type TinkerRecorder,
} from "../../test/fakes/tinker-recorder.js";
import { TinkerHttp } from "../policy/index.js";
import { sequenceDatum } from "./datums.js";
import { chunkDatums, combineOutputs, estimatedBytes } from "./fwdbwd-wire.js";
import { TinkerTrainingClient } from "./tinker.js";

const datum = (n: number) =>
  sequenceDatum(
    {
      tokenIds: Array.from({ length: n + 1 }, (_, i) => i + 1),
      lossMask: Array.from({ length: n + 1 }, (_, i) => (i ? 1 : 0)),
      logprobs: Array.from({ length: n + 1 }, () => -0.5),
    },
    1,
  );

describe("chunkDatums", () => {
  it("estimates a datum as the SDK does: 4 bytes per token, packed tensor bytes (int64 8, float32 4)", () => {
    // 3 input tokens (12) + target_tokens 3 x 8 + logprobs 3 x 4 + advantages 3 x 4.
    expect(estimatedBytes(datum(3))).toBe(12 + 24 + 12 + 12);
  });

  it("splits by datum count and by estimated bytes; a datum larger than the limit goes alone", () => {
    const four = [datum(1), datum(1), datum(1), datum(1)];
    expect(
      chunkDatums(four, { maxChunkDatums: 3, maxChunkBytes: 1e9 }).map((c) => c.length),
    ).toEqual([3, 1]);
    // datum(1) is 20 bytes: two fit in 40, a third does not.
    expect(
      chunkDatums(four, { maxChunkDatums: 1024, maxChunkBytes: 40 }).map((c) => c.length),
    ).toEqual([2, 2]);
    expect(
      chunkDatums([datum(1), datum(10), datum(1)], { maxChunkDatums: 1024, maxChunkBytes: 40 }).map(
        (c) => c.map(estimatedBytes),
      ),
    ).toEqual([[20], [200], [20]]);
    expect(chunkDatums([], { maxChunkDatums: 2, maxChunkBytes: 40 })).toEqual([]);
  });
});

describe("combineOutputs", () => {
  it("joins outputs in order and reduces metrics by their suffix as the SDK does (mean weighted by datums)", () => {
    const out = (n: number, metrics: Record<string, number>) => ({
      lossFnOutputs: Array.from({ length: n }, (_, i) => ({
        logprobs: { data: [i], dtype: "float32" as const, shape: [1] },
      })),
      metrics,
    });
    const combined = combineOutputs([
      out(1, {
        "loss:sum": 1,
        "lr:mean": 2,
        "g:min": 3,
        "g2:max": 3,
        "odd:unique": 1,
        "only:sum": 1,
      }),
      out(3, { "loss:sum": 2, "lr:mean": 6, "g:min": 1, "g2:max": 5, "odd:unique": 2 }),
    ]);
    expect(combined.metrics).toEqual({ "loss:sum": 3, "lr:mean": 5, "g:min": 1, "g2:max": 5 });
    expect(combined.lossFnOutputs.map((o) => o.logprobs!.data[0])).toEqual([0, 0, 1, 2]);
  });
});

let recorder: TinkerRecorder | undefined;
afterEach(async () => {
  await recorder?.close();
  recorder = undefined;
});

/** A recorder that speaks neither JWT, zstd nor protobuf, with `extra` on top. */
const plainRecorder = (extra: Partial<RecorderOptions> = {}) =>
  startTinkerRecorder({ jwt: false, zstd: false, protobuf: false, ...extra });

/** The forward_backward requests the recorder has seen, in order. */
const forwardBackwardPosts = (r: TinkerRecorder) =>
  r.requests.filter((request) => request.path === "/api/v1/forward_backward");

function client(r: TinkerRecorder, forwardBackwardEncoding?: "auto" | "protobuf" | "json") {
  const http = new TinkerHttp({
    baseURL: r.baseURL,
    apiKeyEnv: "K",
    environment: { K: r.apiKey },
    heartbeatMs: 0,
    retry: { maxRetries: 0 },
  });
  return new TinkerTrainingClient(http, {
    baseModel: "Org/Tiny-1B",
    loraRank: 8,
    forwardBackwardEncoding,
  });
}

describe("forward_backward on the wire", () => {
  it("splits a batch by the service's announced fwdbwd_max_chunk_len, one seq id per request, and joins the results", async () => {
    recorder = await startTinkerRecorder({
      jwt: false,
      zstd: true,
      protobuf: true,
      config: { fwdbwd_max_chunk_len: 2 },
    });
    const out = await client(recorder).forwardBackward(
      [datum(1), datum(2), datum(3)],
      "importance_sampling",
    );
    const posts = forwardBackwardPosts(recorder);
    expect(
      posts.map((p) => [
        p.proto?.seq_id,
        p.proto?.forward_backward_input.data.length,
        p.headers["content-encoding"],
      ]),
    ).toEqual([
      [1, 2, "zstd"],
      [2, 1, "zstd"],
    ]);
    // The recorder's loss is -advantage per target (advantage 1 on every sampled target): -1, -2, -3 summed.
    expect(out.metrics).toEqual({ "loss:sum": -6 });
    expect(out.lossFnOutputs.map((o) => o.logprobs!.data)).toEqual([
      [-0.5],
      [-0.5, -0.5],
      [-0.5, -0.5, -0.5],
    ]);
  });

  it("json never sends protobuf; protobuf forced on a server that refuses it fails with E_POLICY_HTTP", async () => {
    recorder = await plainRecorder();
    const json = client(recorder, "json");
    await json.forwardBackward([datum(1)], "importance_sampling");
    expect(forwardBackwardPosts(recorder).map((r) => r.headers["content-type"])).toEqual([
      "application/json",
    ]);
    expect(json.forwardBackwardWire).toBe("json");
    const forced = client(recorder, "protobuf");
    expect(await codeOfAsync(forced.forwardBackward([datum(1)], "importance_sampling"))).toBe(
      "E_POLICY_HTTP",
    );
  });

  it("a server whose handshake does not name the protobuf flags and fails on protobuf (500, as SkyRL tx 0.3.0) gets the same request as JSON, for the session", async () => {
    recorder = await plainRecorder({ refusal: 500 });
    const c = client(recorder);
    await c.forwardBackward([datum(1)], "importance_sampling");
    await c.forwardBackward([datum(2)], "importance_sampling");
    const posts = forwardBackwardPosts(recorder);
    expect(posts.map((p) => p.headers["content-type"])).toEqual([
      "application/x-protobuf",
      "application/json",
      "application/json",
    ]);
    expect(posts[1]!.headers["x-idempotency-key"]).toBe(posts[0]!.headers["x-idempotency-key"]);
    expect(posts.map((p) => p.proto?.seq_id ?? (p.json as { seq_id: number }).seq_id)).toEqual([
      1, 1, 2,
    ]);
    expect(c.forwardBackwardWire).toBe("json");
  });

  it("a server whose handshake names the protobuf flags is not sent JSON when protobuf fails: the failure is reported", async () => {
    recorder = await plainRecorder({ refusal: 500, config: { proto_compress_fwdbwd: false } });
    const c = client(recorder);
    expect(await codeOfAsync(c.forwardBackward([datum(1)], "importance_sampling"))).toBe(
      "E_POLICY_HTTP",
    );
    expect(forwardBackwardPosts(recorder).map((p) => p.headers["content-type"])).toEqual([
      "application/x-protobuf",
    ]);
    expect(c.forwardBackwardWire).toBe(null);
  });

  it("E_CONFIG for an unknown encoding", () => {
    const http = new TinkerHttp({ baseURL: "http://127.0.0.1:9" });
    expect(
      () =>
        new TinkerTrainingClient(http, {
          baseModel: "m",
          forwardBackwardEncoding: "xml" as "json",
        }),
    ).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
  });
});
