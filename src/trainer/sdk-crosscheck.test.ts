/**
 * SPADE's Tinker client against the official SDK 0.38.0 (installed in .venv from
 * requirements-test.txt): both run one training flow against a recording test double
 * (test/fakes/tinker-recorder.ts) and their requests are compared path by path, header by header,
 * body by body, for every combination of the handshake's JWT and zstd flags, and against a
 * server that refuses protobuf.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import {
  startTinkerRecorder,
  type RecordedRequest,
  type RecorderOptions,
  type TinkerRecorder,
} from "../../test/fakes/tinker-recorder.js";
import {
  PROTOBUF_CONTENT_TYPE,
  TinkerHttp,
  tinkerSampler,
  zstdDecompress,
} from "../policy/index.js";
import { skipWithout } from "../../test/missing.js";
import { sequenceDatum } from "./datums.js";
import { TinkerTrainingClient, type TinkerLoss } from "./tinker.js";

const VENV_PYTHON = fileURLToPath(new URL("../../.venv/bin/python", import.meta.url));
const SDK_FLOW = fileURLToPath(new URL("../../test/tinker-sdk/sdk_flow.py", import.meta.url));
const CANONICAL = fileURLToPath(new URL("../../test/tinker-sdk/canonical.py", import.meta.url));
const SDK_MISSING = existsSync(VENV_PYTHON)
  ? null
  : "no .venv: run bash scripts/setup-python.sh (npm test does)";

/** Fixed datums: one agent-like sequence, one designer-like sequence (SPADE's own datum builder). */
const DATUMS = [
  sequenceDatum(
    {
      tokenIds: [101, 7, 8, 9, 13, 14],
      lossMask: [0, 0, 1, 1, 0, 1],
      logprobs: [0, 0, -0.5, -0.25, 0, -1.125],
    },
    1.5,
  ),
  sequenceDatum(
    { tokenIds: [200, 201, 202, 3], lossMask: [0, 0, 1, 1], logprobs: [0, 0, -2, -0.0625] },
    -0.75,
  ),
];
const LOSSES: Array<{ name: TinkerLoss; config?: Record<string, number> }> = [
  { name: "importance_sampling" },
  { name: "ppo", config: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 } },
];
// grad_clip_norm 1.0, the reference's Slime runs' clip: the SDK sends what --grad-clip-norm 1 sends.
const ADAM = {
  learning_rate: 1e-6,
  beta1: 0.9,
  beta2: 0.98,
  eps: 1e-8,
  weight_decay: 0.1,
  grad_clip_norm: 1.0,
};
const SAMPLE = { prompt: [5, 6, 7], max_tokens: 3, stop: [2], temperature: 0.7, seed: 5 };
const FLOW = {
  base_model: "Org/Tiny-1B",
  rank: 8,
  seed: 7,
  datums: DATUMS,
  losses: LOSSES,
  adam: ADAM,
  checkpoint: "step-1",
  sample: SAMPLE,
};

/** Requests only the SDK makes: both read names for the SDK's tokenizer (SPADE's comes from --model-path). */
const SDK_ONLY = (r: RecordedRequest) =>
  r.path === "/api/v1/get_info" || (r.method === "GET" && r.path.startsWith("/api/v1/samplers/"));
/** Requests whose number depends on timing. */
const TIMED = (r: RecordedRequest) =>
  r.path === "/api/v1/session_heartbeat" || r.path === "/api/v1/telemetry";

const workDir = fileTempDir("spade-sdk-");
const flowPath = join(workDir, "flow.json");
writeFileSync(flowPath, JSON.stringify(FLOW));

/**
 * Runs the official SDK's flow against each of `recorders` in turn, in one Python process
 * (importing the SDK is most of a flow's time); resolves to the printed results, in order.
 */
async function runSdk(recorders: TinkerRecorder[]): Promise<any[]> {
  const apiKey = recorders[0]!.apiKey;
  if (recorders.some((r) => r.apiKey !== apiKey))
    throw new Error("the SDK flow takes one API key for all its servers");
  const child = spawn(VENV_PYTHON, [SDK_FLOW, flowPath, ...recorders.map((r) => r.baseURL)], {
    env: {
      PATH: process.env.PATH,
      TINKER_API_KEY: apiKey,
      TINKER_TELEMETRY: "0",
      HOME: workDir,
    },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("close", (c, s) => resolve([c, s])),
  );
  if (code !== 0) {
    const how = signal === null ? `exit ${code}` : `killed by ${signal}`;
    throw new Error(`the SDK flow failed (${how}): ${err.slice(-2000)}`);
  }
  return JSON.parse(out);
}

/** Runs the same flow with SPADE's clients. */
async function runSpade(recorder: TinkerRecorder, encoding: "auto" | "json" = "auto") {
  const http = new TinkerHttp({
    baseURL: recorder.baseURL,
    apiKeyEnv: "TINKER_API_KEY",
    environment: { TINKER_API_KEY: recorder.apiKey },
    heartbeatMs: 0,
  });
  const client = new TinkerTrainingClient(http, {
    baseModel: FLOW.base_model,
    loraRank: FLOW.rank,
    loraSeed: FLOW.seed,
    forwardBackwardEncoding: encoding,
  });
  const forwardBackward = [];
  for (const loss of LOSSES) {
    const out = await client.forwardBackward(DATUMS, loss.name, loss.config);
    forwardBackward.push({ loss_fn_outputs: out.lossFnOutputs, metrics: out.metrics });
  }
  const optimMetrics = await client.optimStep({
    learningRate: ADAM.learning_rate,
    beta1: ADAM.beta1,
    beta2: ADAM.beta2,
    eps: ADAM.eps,
    weightDecay: ADAM.weight_decay,
    gradClipNorm: ADAM.grad_clip_norm,
  });
  const samplerPath = await client.saveWeightsForSampler(FLOW.checkpoint);
  const sampler = tinkerSampler({
    baseURL: recorder.baseURL,
    http,
    baseModel: FLOW.base_model,
    modelPath: samplerPath,
  });
  const sampled = await sampler.sample({
    promptTokenIds: SAMPLE.prompt,
    maxTokens: SAMPLE.max_tokens,
    stopTokenIds: SAMPLE.stop,
    temperature: SAMPLE.temperature,
    seed: SAMPLE.seed,
  });
  http.close();
  return {
    results: {
      forward_backward: forwardBackward,
      optim_metrics: optimMetrics,
      sampler_path: samplerPath,
      sequences: sampled.map((s) => ({
        tokens: s.tokenIds,
        logprobs: s.logprobs,
        stop_reason: s.stopReason,
      })),
    },
    wire: client.forwardBackwardWire,
  };
}

/** A request reduced to what a server acts on: method, path, the headers that matter, the body. */
function essence(recorder: TinkerRecorder, r: RecordedRequest) {
  const key = String(r.headers["x-api-key"]);
  const jwt = recorder.issuedJwts.indexOf(key);
  return {
    method: r.method,
    path: r.path,
    contentType: r.headers["content-type"] ?? null,
    contentEncoding: r.headers["content-encoding"] ?? null,
    accept: r.headers.accept ?? null,
    credential: key === recorder.apiKey ? "api-key" : jwt >= 0 ? `jwt-${jwt}` : "other",
    idempotencyKey: r.method === "POST" ? typeof r.headers["x-idempotency-key"] === "string" : null,
    body: r.proto ?? r.json,
  };
}

const compared = (recorder: TinkerRecorder) =>
  recorder.requests.filter((r) => !SDK_ONLY(r) && !TIMED(r)).map((r) => essence(recorder, r));
/** The uncompressed protobuf bytes of a recorded body. */
const protoBytes = (r: RecordedRequest) =>
  r.headers["content-encoding"] === "zstd" ? zstdDecompress(r.raw) : new Uint8Array(r.raw);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The SDK's schema serializing the SDK's own bodies deterministically, and those compressed as the SDK compresses. */
function canonical(bodies: Uint8Array[]): Array<{ deterministic: string; zstd: string }> {
  const run = spawnSync(VENV_PYTHON, [CANONICAL], {
    input: JSON.stringify(bodies.map(hex)),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`canonical.py failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Runs SPADE's flow against a fresh recorder with `flags`; the recorder is closed after it. */
async function spadeAgainst(flags: RecorderOptions) {
  const recorder = await startTinkerRecorder(flags);
  try {
    return { spade: await runSpade(recorder), spadeRecorder: recorder };
  } finally {
    await recorder.close();
  }
}

/** The handshakes both clients are compared under (the server accepts protobuf). */
const HANDSHAKES = [
  { jwt: false, zstd: false },
  { jwt: false, zstd: true },
  { jwt: true, zstd: false },
  { jwt: true, zstd: true },
];

/** The SDK's side of one handshake: its recorder (closed), its results, the canonical forms of its bodies. */
interface SdkRun {
  sdkRecorder: TinkerRecorder;
  sdk: any;
  expected: Array<{ deterministic: string; zstd: string }>;
}

describe.skipIf(skipWithout(SDK_MISSING))(
  "SPADE's Tinker client matches the official SDK 0.38.0 request for request",
  () => {
    // The SDK's flows for every handshake, run once: one SDK process and one canonical.py call
    // for all (starting Python with the SDK is most of their time). Each test runs SPADE's side.
    const sdkRuns = new Map<string, SdkRun>();
    const sdkRun = (flags: { jwt: boolean; zstd: boolean }): SdkRun => {
      const run = sdkRuns.get(JSON.stringify(flags));
      if (!run) throw new Error("the SDK's flows run in beforeAll");
      return run;
    };
    beforeAll(async () => {
      const recorders = await Promise.all(
        HANDSHAKES.map((flags) => startTinkerRecorder({ ...flags, protobuf: true })),
      );
      let results: any[];
      try {
        results = await runSdk(recorders);
      } finally {
        for (const recorder of recorders) await recorder.close();
      }
      const bodies = recorders.map((r) =>
        r.requests.filter((q) => q.path === "/api/v1/forward_backward").map(protoBytes),
      );
      const expected = canonical(bodies.flat());
      let at = 0;
      HANDSHAKES.forEach((flags, i) => {
        const count = bodies[i]!.length;
        sdkRuns.set(JSON.stringify(flags), {
          sdkRecorder: recorders[i]!,
          sdk: results[i],
          expected: expected.slice(at, (at += count)),
        });
      });
    }, 120_000);

    describe.each(HANDSHAKES)("handshake: protobuf accepted, JWT $jwt, zstd $zstd", (flags) => {
      it("sends the same requests and reads the same results", { timeout: 120_000 }, async () => {
        const { sdk, sdkRecorder, expected } = sdkRun(flags);
        const { spade, spadeRecorder } = await spadeAgainst({ ...flags, protobuf: true });
        expect(spade.wire).toBe("protobuf");
        const sdkRequests = compared(sdkRecorder);
        const spadeRequests = compared(spadeRecorder);
        expect(spadeRequests.map((r) => `${r.method} ${r.path}`)).toEqual(
          sdkRequests.map((r) => `${r.method} ${r.path}`),
        );
        expect(spadeRequests).toEqual(sdkRequests);
        // The handshake as the flags say: the exchange only with JWT, its token on every later request.
        const paths = spadeRequests.map((r) => r.path);
        const start = [
          "/api/v1/client/config",
          ...(flags.jwt ? ["/api/v1/auth/token"] : []),
          "/api/v1/client/dynamic_config",
          "/api/v1/create_session",
        ];
        expect(paths.slice(0, start.length)).toEqual(start);
        expect(new Set(spadeRequests.slice(flags.jwt ? 2 : 1).map((r) => r.credential))).toEqual(
          new Set([flags.jwt ? "jwt-0" : "api-key"]),
        );
        const fb = spadeRequests.filter((r) => r.path === "/api/v1/forward_backward");
        expect(fb.map((r) => [r.contentType, r.contentEncoding])).toEqual(
          LOSSES.map(() => [PROTOBUF_CONTENT_TYPE, flags.zstd ? "zstd" : null]),
        );

        // Protobuf bodies: byte-equal to the SDK's own message serialized deterministically, and
        // compressed frames byte-equal to the SDK's compressor's.
        const spadeFb = spadeRecorder.requests.filter((r) => r.path === "/api/v1/forward_backward");
        expect(spadeFb.map((r) => hex(protoBytes(r)))).toEqual(
          expected.map((e) => e.deterministic),
        );
        if (flags.zstd) expect(spadeFb.map((r) => hex(r.raw))).toEqual(expected.map((e) => e.zstd));

        // Results read from protobuf futures equal the SDK's, float32 values included.
        expect(spade.results).toEqual(sdk);
      });
    });

    it("falls back to JSON for the session when the server refuses protobuf (415), with the body the SDK encodes", {
      timeout: 120_000,
    }, async () => {
      // The SDK's side is its flow against a server that accepts protobuf (the first handshake).
      const { sdkRecorder } = sdkRun({ jwt: false, zstd: false });
      const { spade, spadeRecorder } = await spadeAgainst({
        jwt: false,
        zstd: false,
        protobuf: false,
      });
      expect(spade.wire).toBe("json");
      const sdkFb = compared(sdkRecorder).filter((r) => r.path === "/api/v1/forward_backward");
      const spadeFb = compared(spadeRecorder).filter((r) => r.path === "/api/v1/forward_backward");
      // One refused protobuf attempt, then JSON only, seq ids unchanged.
      expect(spadeFb.map((r) => r.contentType)).toEqual([
        PROTOBUF_CONTENT_TYPE,
        "application/json",
        "application/json",
      ]);
      const asJson = (body: any) => {
        const { loss_fn_config, ...input } = body.forward_backward_input;
        return {
          model_id: body.model_id,
          seq_id: body.seq_id,
          forward_backward_input: loss_fn_config === null ? input : body.forward_backward_input,
        };
      };
      expect(spadeFb.slice(1).map((r) => r.body)).toEqual(sdkFb.map((r) => asJson(r.body)));
      expect(spadeFb[0]!.body).toEqual(sdkFb[0]!.body);
    });
  },
);
