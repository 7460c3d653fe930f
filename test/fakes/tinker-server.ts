/**
 * @module test/fakes/tinker-server
 * TEST DOUBLE. A real HTTP server on 127.0.0.1 (ephemeral port) speaking the sampling half of
 * the Tinker API as SkyRL tx serves it: `create_session`, `session_heartbeat`,
 * `create_sampling_session`, `asample` (answers a future) and `retrieve_future` (answers
 * `try_again` a scripted number of times, long-poll 408s, then the result). Scripted faults
 * (429 with `retry-after`, 5xx) hit chosen endpoints; every request is recorded. With `training`,
 * it also serves the training endpoints (test/fakes/tinker-training.ts) and samples from the
 * sampler weights they save.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { listenLoopback } from "../../src/net/index.js";
import { FakeTrainingEngine } from "./tinker-training.js";

/** A sampling request as the fake hands it to the script. */
export interface FakeSampleRequest {
  promptTokens: number[];
  maxTokens: number;
  stop: number[];
  numSamples: number;
  /** What is sampled from: the base model, or a sampler path saved by the training endpoints. */
  model: string;
  /** The whole `asample` body. */
  body: any;
}

/** What the script answers: sampled sequences, or a failed future. */
export type FakeSampleResult =
  | { sequences: Array<{ tokens: number[]; logprobs?: number[] | null; stop_reason: string }> }
  | { error: string; category: "user" | "server" | "unknown" };

/** A scripted HTTP fault: the next `times` requests to `path` get `status`. */
export interface FakeFault {
  path: string;
  status: number;
  headers?: Record<string, string>;
  times?: number;
}

/** Settings of the fake. */
export interface FakeTinkerOptions {
  /** The only base model it serves (SkyRL: its `--base-model`). */
  baseModel: string;
  /** Answers each sampling request. */
  sample: (request: FakeSampleRequest) => FakeSampleResult;
  /** `try_again` answers before each result. Default 0. */
  tryAgainPolls?: number;
  /** Long-poll 408 answers before each result (after the try_agains). Default 0. */
  longPollTimeouts?: number;
  /** Faults, consumed in order per path. */
  faults?: FakeFault[];
  /** The API key it demands in `X-API-Key`, if any. */
  apiKey?: string;
  /** Also serve the training endpoints. Default false. */
  training?: boolean;
}

/** A request as received. */
export interface RecordedTinkerRequest {
  path: string;
  body: any;
  headers: IncomingHttpHeaders;
}

/** A running fake. */
export interface FakeTinkerServer {
  /** The server root (`/api/v1/...` lies below it). */
  baseURL: string;
  requests: RecordedTinkerRequest[];
  /** Requests to one path, in order. */
  requestsTo(path: string): RecordedTinkerRequest[];
  /** The training endpoints' state, when `training` is on. */
  training: FakeTrainingEngine | null;
  close(): Promise<void>;
}

function isIntArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v));
}

/** Starts the fake. */
export async function startFakeTinkerServer(options: FakeTinkerOptions): Promise<FakeTinkerServer> {
  const requests: RecordedTinkerRequest[] = [];
  const faults = (options.faults ?? []).map((f) => ({ ...f, left: f.times ?? 1 }));
  const sessions = new Set<string>();
  const samplingSessions = new Map<string, string>();
  const futures = new Map<string, { result: unknown; sample: boolean; polls: number }>();
  let nextId = 0;
  const training = options.training
    ? new FakeTrainingEngine(
        options.baseModel,
        (id) => sessions.has(id),
        (result) => {
          const id = String(nextId++);
          futures.set(id, { result, sample: false, polls: 0 });
          return id;
        },
      )
    : null;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "";
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = null;
      }
      requests.push({ path, body, headers: req.headers });
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(value));
      };
      const fault = faults.find((f) => f.path === path && f.left > 0);
      if (fault) {
        fault.left--;
        return send(fault.status, { detail: `scripted ${fault.status}` }, fault.headers);
      }
      if (options.apiKey !== undefined && req.headers["x-api-key"] !== options.apiKey)
        return send(401, { detail: "bad key" });
      // FastAPI (SkyRL tx) answers a body that is not JSON, e.g. protobuf, with 422.
      if (req.method !== "POST" || body === null)
        return send(req.method === "POST" ? 422 : 400, { detail: "POST a JSON body" });
      switch (path) {
        case "/api/v1/create_session": {
          if (!Array.isArray(body.tags) || typeof body.sdk_version !== "string")
            return send(422, { detail: "tags and sdk_version are required" });
          const id = `session_${nextId++}`;
          sessions.add(id);
          return send(200, { type: "create_session", session_id: id });
        }
        case "/api/v1/session_heartbeat":
          return sessions.has(body.session_id)
            ? send(200, { type: "session_heartbeat" })
            : send(404, { detail: "Session not found" });
        case "/api/v1/create_sampling_session": {
          if (!sessions.has(body.session_id)) return send(404, { detail: "Session not found" });
          if (!Number.isInteger(body.sampling_session_seq_id))
            return send(422, { detail: "sampling_session_seq_id is required" });
          if ((body.base_model == null) === (body.model_path == null))
            return send(400, {
              detail: "Exactly one of base_model or model_path must be provided",
            });
          const id = `sampling_${nextId++}`;
          samplingSessions.set(id, body.base_model ?? body.model_path);
          return send(200, { type: "create_sampling_session", sampling_session_id: id });
        }
        case "/api/v1/asample": {
          const params = body.sampling_params ?? {};
          const tokens = (body.prompt?.chunks ?? []).flatMap((c: any) =>
            isIntArray(c?.tokens) ? c.tokens : [NaN],
          );
          if (tokens.length === 0 || tokens.some((t: number) => Number.isNaN(t)))
            return send(422, { detail: "prompt.chunks[].tokens must be token ids" });
          if (!Number.isInteger(params.max_tokens))
            return send(400, { detail: "max_tokens is currently required" });
          if (params.stop != null && !isIntArray(params.stop))
            return send(422, { detail: "stop must be token ids" });
          let model: string | undefined = body.base_model ?? body.model_path;
          if (body.sampling_session_id !== undefined) {
            if (!Number.isInteger(body.seq_id))
              return send(422, {
                detail: "'seq_id' must be provided when 'sampling_session_id' is used",
              });
            model = samplingSessions.get(body.sampling_session_id);
            if (model === undefined) return send(404, { detail: "Sampling session not found" });
          }
          const served =
            model === options.baseModel ||
            (model !== undefined && training?.isSamplerPath(model) === true);
          const result: FakeSampleResult = served
            ? options.sample({
                promptTokens: tokens,
                maxTokens: params.max_tokens,
                stop: params.stop ?? [],
                numSamples: body.num_samples ?? 1,
                model: model as string,
                body,
              })
            : {
                error: `base model ${JSON.stringify(model)} is not served (serving ${options.baseModel})`,
                category: "user",
              };
          const id = String(nextId++);
          futures.set(id, { result, sample: true, polls: 0 });
          return send(200, { future_id: id, status: "pending", request_id: id });
        }
        case "/api/v1/retrieve_future": {
          const future = futures.get(String(body.request_id));
          if (!future) return send(404, { detail: "Future not found" });
          const poll = future.polls++;
          const tryAgain = options.tryAgainPolls ?? 0;
          if (poll < tryAgain)
            return send(200, {
              type: "try_again",
              request_id: String(body.request_id),
              queue_state: "active",
            });
          if (poll < tryAgain + (options.longPollTimeouts ?? 0))
            return send(408, { detail: "Timeout waiting for result" });
          const result = future.result as Record<string, unknown>;
          return send(
            200,
            !future.sample || "error" in result
              ? result
              : { type: "sample", prompt_logprobs: null, ...result },
          );
        }
        default: {
          const answer = training?.handle(path, body);
          return answer ? send(answer.status, answer.value) : send(404, { detail: "Not Found" });
        }
      }
    });
  });
  const { port, close } = await listenLoopback(server);
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (path) => requests.filter((r) => r.path === path),
    training,
    close,
  };
}
