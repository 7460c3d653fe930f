/**
 * @module test/fakes/tinker-recorder
 * TEST DOUBLE. A Tinker service on 127.0.0.1 (ephemeral port) that records every request byte for
 * byte and answers as the hosted service does for the official SDK 0.38.0: the handshake
 * (`client/config` with chosen flags, `client/dynamic_config` or 404, `auth/token` JWTs), the
 * session, a LoRA model, protobuf (optionally zstd) or JSON `forward_backward`, `optim_step`,
 * sampler weights, sampling, and futures whose results come as protobuf when the client asks.
 * Answers are deterministic, so two clients running the same flow see the same answers.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { listenLoopback } from "../../src/net/index.js";
import {
  decodeForwardBackward,
  PROTOBUF_CONTENT_TYPE,
  zstdDecompress,
  type ForwardBackwardBody,
} from "../../src/policy/index.js";
import {
  DType,
  ForwardBackwardOutputSchema,
  SampleResponseSchema,
  StopReason,
} from "../../src/policy/third_party/tinker-proto/tinker_public_pb.js";

/** The flags the recorder's handshake announces, and what it accepts. */
export interface RecorderOptions {
  /** Announce `pjwt_auth_enabled` and demand the issued JWT after the handshake. */
  jwt: boolean;
  /** Announce `proto_compress_fwdbwd`. */
  zstd: boolean;
  /** Accept protobuf `forward_backward` bodies; false answers them with `refusal` (a JSON-only server). */
  protobuf: boolean;
  /** How a JSON-only recorder answers protobuf: 415 (default) or 500 (FastAPI failing to print the bytes, SkyRL tx 0.3.0). */
  refusal?: 415 | 500;
  /** Serve `/client/dynamic_config`; false answers 404 (an older service). Default true. */
  dynamicConfig?: boolean;
  /** The API key it demands. Default `tml-recorder-key`. */
  apiKey?: string;
  /** More `client/config` flags (e.g. `fwdbwd_max_chunk_len`). */
  config?: Record<string, unknown>;
}

/** One recorded request. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent. */
  raw: Buffer;
  /** The body parsed as JSON, or null when it is not JSON. */
  json: unknown;
  /** A `forward_backward` protobuf body (decompressed, decoded into its JSON shape), else null. */
  proto: ReturnType<typeof decodeForwardBackward> | null;
}

/** A running recorder. */
export interface TinkerRecorder {
  baseURL: string;
  apiKey: string;
  /** JWTs issued, in order. */
  issuedJwts: string[];
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Bytes of little-endian values. */
function bytesOf(values: readonly number[], dtype: "f32" | "i32" | "i64"): Uint8Array {
  const out = new Uint8Array(values.length * (dtype === "i64" ? 8 : 4));
  const view = new DataView(out.buffer);
  values.forEach((v, i) =>
    dtype === "f32"
      ? view.setFloat32(i * 4, v, true)
      : dtype === "i32"
        ? view.setInt32(i * 4, v, true)
        : view.setBigInt64(i * 8, BigInt(v), true),
  );
  return out;
}

/** The deterministic result of a `forward_backward`: per datum, logprobs -0.5 per target and elementwise loss -advantage. */
function fbResult(body: ForwardBackwardBody) {
  const perDatum = body.forward_backward_input.data.map((d) => {
    const n = d.loss_fn_inputs.target_tokens?.data.length ?? 0;
    const advantages = d.loss_fn_inputs.advantages?.data ?? new Array<number>(n).fill(0);
    return { logprobs: new Array<number>(n).fill(-0.5), loss: advantages.map((a) => -a) };
  });
  const metrics = {
    "loss:sum": perDatum.reduce((s, d) => s + d.loss.reduce((a, b) => a + b, 0), 0),
  };
  const json = {
    loss_fn_output_type: "ArrayRecord",
    metrics,
    loss_fn_outputs: perDatum.map((d) => ({
      logprobs: { data: d.logprobs, dtype: "float32", shape: [d.logprobs.length] },
      elementwise_loss: { data: d.loss, dtype: "float32", shape: [d.loss.length] },
    })),
  };
  const batched = (rows: number[][]) => {
    const offsets = [0];
    for (const row of rows) offsets.push((offsets.at(-1) as number) + row.length * 4);
    return {
      data: bytesOf(rows.flat(), "f32"),
      offsets: bytesOf(offsets, "i64"),
      dtype: DType.DTYPE_FLOAT32,
      trailingShape: [],
    };
  };
  const proto = toBinary(
    ForwardBackwardOutputSchema,
    create(ForwardBackwardOutputSchema, {
      lossFnOutputType: "tinker.types:ArrayRecord",
      metrics,
      lossFnOutputs: [
        {
          typeTag: "ArrayRecord",
          numDatums: BigInt(perDatum.length),
          fields: {
            logprobs: batched(perDatum.map((d) => d.logprobs)),
            elementwise_loss: batched(perDatum.map((d) => d.loss)),
          },
        },
      ],
    }),
  );
  return { json, proto };
}

/** The deterministic result of a sample: the prompt's last token + 1, +2, ... with logprobs -0.25. */
function sampleResult(body: any) {
  const prompt: number[] = (body.prompt?.chunks ?? []).flatMap((c: any) => c.tokens ?? []);
  const maxTokens: number = body.sampling_params?.max_tokens ?? 1;
  const last = prompt.at(-1) ?? 0;
  const tokens = Array.from({ length: maxTokens }, (_, i) => last + i + 1);
  const logprobs = tokens.map(() => -0.25);
  const sequences = Array.from({ length: body.num_samples ?? 1 }, () => ({
    tokens,
    logprobs,
    stop_reason: "length",
  }));
  const json = { type: "sample", sequences, prompt_logprobs: null };
  const proto = toBinary(
    SampleResponseSchema,
    create(SampleResponseSchema, {
      sequences: sequences.map(() => ({
        stopReason: StopReason.LENGTH,
        tokens: bytesOf(tokens, "i32"),
        logprobs: bytesOf(logprobs, "f32"),
      })),
    }),
  );
  return { json, proto };
}

/** Starts the recorder. */
export async function startTinkerRecorder(options: RecorderOptions): Promise<TinkerRecorder> {
  const apiKey = options.apiKey ?? "tml-recorder-key";
  const requests: RecordedRequest[] = [];
  const issuedJwts: string[] = [];
  const futures = new Map<string, { json: unknown; proto: Uint8Array | null }>();
  let sessions = 0;
  let models = 0;
  let samplingSessions = 0;
  const samplerModels = new Map<string, string | null>();
  let nextFuture = 0;
  const future = (json: unknown, proto: Uint8Array | null = null) => {
    const id = `req-${nextFuture++}`;
    futures.set(id, { json, proto });
    return id;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0] as string;
      const raw = Buffer.concat(chunks);
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(value));
      };
      let json: unknown = null;
      let proto: RecordedRequest["proto"] = null;
      const contentType = req.headers["content-type"] ?? "";
      try {
        if (contentType.includes(PROTOBUF_CONTENT_TYPE)) {
          proto = decodeForwardBackward(
            req.headers["content-encoding"] === "zstd" ? zstdDecompress(raw) : raw,
          );
        } else if (raw.length) {
          json = JSON.parse(raw.toString("utf8"));
        }
      } catch {
        json = null;
      }
      requests.push({ method: req.method ?? "", path, headers: req.headers, raw, json, proto });

      // Authentication: the API key for the handshake and the exchange; afterwards the JWT when enabled.
      const key = req.headers["x-api-key"];
      const keyOnly =
        !options.jwt || path === "/api/v1/client/config" || path === "/api/v1/auth/token";
      if (keyOnly ? key !== apiKey : !issuedJwts.includes(String(key))) {
        return send(
          401,
          { detail: "invalid credential" },
          options.jwt && !keyOnly ? { "www-authenticate": 'Bearer error="invalid_token"' } : {},
        );
      }
      const body = (json ?? {}) as any;
      const wantsProto = (req.headers.accept ?? "").includes(PROTOBUF_CONTENT_TYPE);
      switch (path) {
        case "/api/v1/client/config":
          // A JSON-only server stubs the handshake without the protobuf flags, as SkyRL tx does.
          return send(200, {
            pjwt_auth_enabled: options.jwt,
            ...(options.protobuf ? { proto_compress_fwdbwd: options.zstd } : {}),
            ...options.config,
          });
        case "/api/v1/client/dynamic_config":
          return options.dynamicConfig === false
            ? send(404, { detail: "Not Found" })
            : send(200, { refresh_interval_sec: 300, sample_cancel_enabled: false });
        case "/api/v1/auth/token": {
          const iat = Math.floor(Date.now() / 1000);
          const jwt = `${b64url({ alg: "none", typ: "JWT" })}.${b64url({ iss: "recorder", iat, exp: iat + 3600, n: issuedJwts.length })}.sig`;
          issuedJwts.push(jwt);
          return send(200, { jwt });
        }
        case "/api/v1/create_session":
          return send(200, { type: "create_session", session_id: `session-${sessions++}` });
        case "/api/v1/session_heartbeat":
          return send(200, { type: "session_heartbeat" });
        case "/api/v1/telemetry":
          return send(200, { status: "accepted" });
        case "/api/v1/create_model": {
          const modelId = `model-${models++}`;
          return send(200, {
            request_id: future({ type: "create_model", model_id: modelId }),
            model_id: modelId,
          });
        }
        case "/api/v1/get_info":
          return send(200, {
            type: "get_info",
            model_id: body.model_id,
            model_data: { arch: "tiny", model_name: "Org/Tiny-1B", tokenizer_id: "Org/Tiny-1B" },
            is_lora: true,
            lora_rank: 8,
          });
        case "/api/v1/forward_backward": {
          if (proto && !options.protobuf) {
            if (options.refusal === 500) {
              res.writeHead(500, { "content-type": "text/plain" });
              return res.end("Internal Server Error");
            }
            return send(415, { detail: "Unsupported Media Type: send JSON" });
          }
          const request = (proto ?? body) as ForwardBackwardBody;
          if (!request?.forward_backward_input)
            return send(422, { detail: "forward_backward_input is required" });
          const result = fbResult(request);
          return send(200, {
            request_id: future(result.json, result.proto),
            model_id: request.model_id,
          });
        }
        case "/api/v1/optim_step":
          return send(200, {
            request_id: future({ type: "optim_step", metrics: { "grad_norm:mean": 0.5 } }),
            model_id: body.model_id,
          });
        case "/api/v1/save_weights_for_sampler":
          return send(200, {
            request_id: future({
              type: "save_weights_for_sampler",
              path: `tinker://${body.model_id}/sampler_weights/${body.path}`,
            }),
            model_id: body.model_id,
          });
        case "/api/v1/create_sampling_session": {
          const id = `sampling-${samplingSessions++}`;
          samplerModels.set(id, body.model_path ?? null);
          return send(200, { type: "create_sampling_session", sampling_session_id: id });
        }
        case "/api/v1/asample": {
          const result = sampleResult(body);
          const id = future(result.json, result.proto);
          return send(200, {
            request_id: id,
            sample_sequence_ids: result.json.sequences.map((_, i) => `${id}/${i}`),
          });
        }
        case "/api/v1/retrieve_future": {
          const found = futures.get(String(body.request_id));
          if (!found) return send(404, { detail: "Future not found" });
          if (found.proto && wantsProto) {
            res.writeHead(200, { "content-type": PROTOBUF_CONTENT_TYPE });
            return res.end(Buffer.from(found.proto));
          }
          return send(200, found.json);
        }
        default:
          if (path.startsWith("/api/v1/samplers/") && req.method === "GET") {
            const id = path.slice("/api/v1/samplers/".length);
            const sampler = samplerModels.get(id);
            return sampler
              ? send(200, { sampler_id: id, base_model: "Org/Tiny-1B", model_path: sampler })
              : send(404, { detail: "Sampler not found" });
          }
          return send(404, { detail: "Not Found" });
      }
    });
  });
  const { port, close } = await listenLoopback(server);
  return {
    baseURL: `http://127.0.0.1:${port}`,
    apiKey,
    issuedJwts,
    requests,
    close,
  };
}
