/**
 * @module policy/tinker-http
 * The HTTP layer shared by SPADE's Tinker-compatible clients (Tinker, SkyRL tx, verl's gateway,
 * TuFT): `/api/v1/...` POSTs with the key (or the JWT the service exchanged for it) in
 * `X-API-Key`, retries by `retry.ts`, a replaceable body encoding (JSON by default; protobuf and
 * zstd for `forward_backward`, see tinker-wire.ts), the start-up handshake of the official SDK
 * (tinker-handshake.ts), the session (`create_session`, heartbeats), sequence ids, and futures
 * polling (`retrieve_future` with `try_again`, long-poll 408s and protobuf results).
 */
import { randomUUID } from "node:crypto";
import { SpadeError } from "../errors.js";
import { resolveApiKey } from "./openai.js";
import { BodyInterruptedError, readBodyCapped } from "./http-body.js";
import {
  failureOf,
  isRetryableStatus,
  REAL_CLOCK,
  retryAfterMs,
  withRetries,
  type AttemptFailure,
  type RetryClock,
  type RetrySettings,
} from "./retry.js";
import {
  DEFAULT_CLIENT_CONFIG,
  JwtAuth,
  parseClientConfig,
  TINKER_SDK_VERSION,
  type TinkerClientConfig,
} from "./tinker-handshake.js";
import { PROTOBUF_CONTENT_TYPE } from "./tinker-wire.js";

/** How a request body is put on the wire. */
export interface BodyEncoding {
  contentType: string;
  /** `Content-Encoding` of the encoded bytes (e.g. `zstd`), if any. */
  contentEncoding?: string;
  encode(body: unknown): string | Uint8Array;
}

/** JSON bodies (every endpoint of SkyRL tx; Tinker's JSON endpoints). */
export const JSON_BODY: BodyEncoding = {
  contentType: "application/json",
  encode: (body) => JSON.stringify(body),
};

/** Settings of the Tinker HTTP layer. */
export interface TinkerHttpOptions extends RetrySettings {
  /** Server root, e.g. `http://127.0.0.1:8000` (`/api/v1/...` is appended; a trailing `/api/v1` is accepted). */
  baseURL: string;
  /** Name of the environment variable holding the API key (sent as `X-API-Key`). Unset: the key `EMPTY`. */
  apiKeyEnv?: string;
  /** Where `apiKeyEnv` is looked up. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /**
   * Largest answer body accepted, in bytes; a larger one fails with E_POLICY_OUTPUT. Default
   * 256 MiB (training answers carry per-token outputs of a whole batch).
   */
  maxAnswerBytes?: number;
  /** `fetch` to use. Default the global one. */
  fetch?: typeof fetch;
  /** Wait after a `try_again` answer before polling again (servers long-poll before answering it). Default 100 ms. */
  pollIntervalMs?: number;
  /** A future not done after this fails with E_POLICY_TIMEOUT. Default 1,800,000 ms (30 min). */
  futureTimeoutMs?: number;
  /** Session heartbeat period (Tinker ends sessions without them); 0 disables. Default 10,000 ms. */
  heartbeatMs?: number;
  /** `sdk_version` sent in the handshake and with `create_session` (servers resolve their flags by it). Default `TINKER_SDK_VERSION`, the SDK release whose protocol SPADE speaks. */
  sdkVersion?: string;
  /** `tags` sent with `create_session`. Default none. */
  tags?: string[];
}

/** Default of `TinkerHttpOptions.maxAnswerBytes`. */
export const DEFAULT_TINKER_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** An HTTP answer with a status the caller handles itself (e.g. a long-poll 408). */
export interface HttpAnswer {
  status: number;
  /** The JSON answer, or null (empty, or protobuf: see `bytes`). */
  body: unknown;
  /** The raw answer when the server answered protobuf. */
  bytes?: Uint8Array;
}

/** Options of one POST. */
export interface RequestOptions {
  signal?: AbortSignal;
  encoding?: BodyEncoding;
  /** Statuses returned instead of retried or thrown. */
  passStatuses?: number[];
  /** `Accept` header. Default `application/json`. */
  accept?: string;
  /** `X-Idempotency-Key` (one key for the same request sent in two encodings). Default a new one. */
  idempotencyKey?: string;
  /** Most retries of this request, instead of the client's `retry.maxRetries`. */
  maxRetries?: number;
}

/** Attempts of `retrieve_future` answered a bare HTTP 400 before the SDK gives up (it may come from a proxy). */
const MAX_BAD_REQUEST_POLLS = 3;

/** A non-2xx answer, as thrown inside one attempt. */
class StatusError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
    readonly headers: Headers,
  ) {
    super(`HTTP ${status}: ${text.slice(0, 300)}`);
  }
}

/** A future the server no longer holds (HTTP 410): the request must be submitted again. */
export class FutureExpiredError extends SpadeError {
  constructor(requestId: string) {
    super("E_POLICY_HTTP", `the server dropped the result of request ${requestId} (HTTP 410)`, {
      nextStep: "submit the request again",
    });
  }
}

/**
 * The id a Tinker call answered under `field`: a string (or, with `numeric`, a number, as
 * asample's request_id may be). Anything else is E_POLICY_OUTPUT naming the call.
 */
export function answeredId(answer: unknown, call: string, field: string, numeric = false): string {
  const id = (answer as Record<string, unknown> | null)?.[field];
  if (typeof id === "string" || (numeric && typeof id === "number")) return String(id);
  throw new SpadeError(
    "E_POLICY_OUTPUT",
    `${call} answered without a ${field}: ${JSON.stringify(answer).slice(0, 200)}`,
    { nextStep: "check that the server speaks the Tinker API" },
  );
}

/**
 * Submits one `asample` body and returns its future's request id; an answer without one fails
 * with E_POLICY_OUTPUT. Shared by the sampler (tinker.ts) and the base-model logprobs
 * (trainer/base-logprobs.ts).
 */
export async function submitSample(
  http: Pick<TinkerHttp, "post">,
  body: object,
  signal?: AbortSignal,
): Promise<string> {
  const answer = await http.post("/api/v1/asample", body, { signal });
  return answeredId(answer, "asample", "request_id", true);
}

/** The HTTP client of one Tinker-compatible server: one session, shared by its sampling and training clients. */
export class TinkerHttp {
  /** The server root without a trailing slash. */
  readonly baseURL: string;
  private readonly apiKey: string;
  private readonly clock: RetryClock;
  private readonly fetchImpl: typeof fetch;
  private sessionId: Promise<string> | null = null;
  private handshakeDone: Promise<TinkerClientConfig> | null = null;
  private jwt: JwtAuth | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private readonly counters = new Map<string, number>();

  /** E_CONFIG at once when `apiKeyEnv` names an unset variable. */
  constructor(readonly options: TinkerHttpOptions) {
    this.baseURL = options.baseURL.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
    this.apiKey = resolveApiKey(options.apiKeyEnv, options.environment ?? process.env);
    this.clock = options.clock ?? REAL_CLOCK;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** The next number of the sequence `name` (0, 1, 2...): sampling-session and request seq ids. */
  nextSeqId(name: string): number {
    const next = this.counters.get(name) ?? 0;
    this.counters.set(name, next + 1);
    return next;
  }

  /**
   * POSTs `body` to `path` with retries (408, 409, 429, 5xx, network errors, timeouts; honouring
   * `retry-after`). Statuses in `passStatuses` are returned instead of retried or thrown. One
   * idempotency key covers all attempts, so a retried submission is not run twice.
   */
  async request(path: string, body: unknown, opts: RequestOptions = {}): Promise<HttpAnswer> {
    const encoding = opts.encoding ?? JSON_BODY;
    const payload = encoding.encode(body);
    const headers: Record<string, string> = {
      "content-type": encoding.contentType,
      accept: opts.accept ?? "application/json",
      "x-api-key": this.apiKey,
      "x-idempotency-key": opts.idempotencyKey ?? `spade-${randomUUID()}`,
    };
    if (encoding.contentEncoding) headers["content-encoding"] = encoding.contentEncoding;
    const url = `${this.baseURL}${path}`;
    const timeoutMs = this.options.retry?.timeoutMs;
    // Before the handshake and for the exchange itself the API key is sent; after it, a JWT when the service asks for one.
    const jwt = path === "/api/v1/auth/token" ? null : this.jwt;
    return withRetries(
      async (signal) => {
        if (jwt) headers["x-api-key"] = await jwt.token();
        let response = await this.fetchImpl(url, {
          method: "POST",
          headers,
          body: payload,
          signal,
        });
        if (
          jwt &&
          response.status === 401 &&
          /error="invalid_token"/.test(response.headers.get("www-authenticate") ?? "")
        ) {
          // The service revoked the JWT before it expired: exchange once more and replay, as the SDK does.
          await response.body?.cancel();
          headers["x-api-key"] = await jwt.replace(headers["x-api-key"] as string);
          response = await this.fetchImpl(url, { method: "POST", headers, body: payload, signal });
        }
        // Read whole inside the attempt (a connection closed mid-answer is retried) and capped.
        const bytes = await readBodyCapped(
          response,
          url,
          this.options.maxAnswerBytes ?? DEFAULT_TINKER_MAX_ANSWER_BYTES,
        );
        if (
          (response.headers.get("content-type") ?? "").includes(PROTOBUF_CONTENT_TYPE) &&
          response.ok
        ) {
          return { status: response.status, body: null, bytes };
        }
        const text = new TextDecoder().decode(bytes);
        if (!response.ok && !opts.passStatuses?.includes(response.status))
          throw new StatusError(response.status, text, response.headers);
        let parsed: unknown = null;
        if (text.trim() !== "") {
          try {
            parsed = JSON.parse(text);
          } catch (cause) {
            throw new SpadeError(
              "E_POLICY_OUTPUT",
              `${url} answered HTTP ${response.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
              {
                nextStep:
                  "check the server's log; a proxy or a crashed worker may be cutting answers",
                cause,
              },
            );
          }
        }
        return { status: response.status, body: parsed };
      },
      {
        options:
          opts.maxRetries === undefined
            ? this.options.retry
            : { ...this.options.retry, maxRetries: opts.maxRetries },
        clock: this.clock,
        signal: opts.signal,
        onRetry: this.options.onRetry,
        onSlow: this.options.onSlow,
        label: url,
        classify: (err, timedOut, nowMs) => this.classify(url, err, timedOut, nowMs, timeoutMs),
      },
    );
  }

  /** POSTs and returns the JSON answer (see `request`). */
  async post(path: string, body: unknown, opts: RequestOptions = {}): Promise<unknown> {
    return (await this.request(path, body, opts)).body;
  }

  /**
   * The SDK's start-up handshake, once per client: `/api/v1/client/config` with the API key (HTTP
   * 404: an older server, SDK defaults and no dynamic configuration), then the JWT exchange when
   * the service enables it, then `/api/v1/client/dynamic_config` (404: defaults).
   */
  handshake(signal?: AbortSignal): Promise<TinkerClientConfig> {
    this.handshakeDone ??= (async () => {
      const version = { sdk_version: this.options.sdkVersion ?? TINKER_SDK_VERSION };
      const answer = await this.request("/api/v1/client/config", version, {
        signal,
        passStatuses: [404],
      });
      if (answer.status === 404) return { ...DEFAULT_CLIENT_CONFIG, served: false };
      const config = parseClientConfig(answer.body);
      // Later exchanges serve any request, so none is tied to this caller's signal.
      if (config.jwtAuth)
        this.jwt = new JwtAuth(
          () => this.post("/api/v1/auth/token", {}),
          () => this.clock.now(),
        );
      await this.request("/api/v1/client/dynamic_config", version, { signal, passStatuses: [404] });
      return config;
    })();
    this.handshakeDone.catch(() => (this.handshakeDone = null));
    return this.handshakeDone;
  }

  /** The session id, created on first use after the handshake (`create_session`); starts the heartbeat. */
  session(signal?: AbortSignal): Promise<string> {
    this.sessionId ??= (async () => {
      await this.handshake(signal);
      const body = {
        tags: this.options.tags ?? [],
        user_metadata: {},
        sdk_version: this.options.sdkVersion ?? TINKER_SDK_VERSION,
        type: "create_session",
      };
      const answer = await this.post("/api/v1/create_session", body, { signal });
      const sessionId = answeredId(answer, "create_session", "session_id");
      this.startHeartbeat(sessionId);
      return sessionId;
    })();
    this.sessionId.catch(() => (this.sessionId = null));
    return this.sessionId;
  }

  /**
   * Waits for the result of a submitted request: polls `retrieve_future`, again at once after a
   * long-poll 408 or a metadata-only answer, after `pollIntervalMs` on `try_again`. With
   * `decodeProtobuf` it asks for a protobuf result (as the SDK does for `forward_backward` and
   * `asample`) and decodes it; JSON results are taken either way. A result with `error` fails with
   * E_POLICY_HTTP, as does a fourth bare HTTP 400 (SkyRL's failed futures); HTTP 410 with
   * FutureExpiredError; past `futureTimeoutMs` with E_POLICY_TIMEOUT.
   */
  async awaitFuture(
    requestId: string,
    signal?: AbortSignal,
    decodeProtobuf?: (bytes: Uint8Array) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const deadline = this.clock.now() + (this.options.futureTimeoutMs ?? 1_800_000);
    // The first poll may be answered with the result's size only (large results); later ones ask for the result.
    let allowMetadataOnly = true;
    let badRequests = 0;
    const accept = decodeProtobuf ? PROTOBUF_CONTENT_TYPE : "application/json";
    for (;;) {
      if (this.clock.now() > deadline) {
        throw new SpadeError(
          "E_POLICY_TIMEOUT",
          `request ${requestId} was not done within ${this.options.futureTimeoutMs ?? 1_800_000} ms`,
          { nextStep: "raise futureTimeoutMs, or check the server's queue" },
        );
      }
      const poll = { request_id: requestId, allow_metadata_only: allowMetadataOnly };
      const answer = await this.request("/api/v1/retrieve_future", poll, {
        signal,
        accept,
        passStatuses: [400, 408, 410],
      });
      if (answer.status === 408) continue;
      if (answer.status === 410) throw new FutureExpiredError(requestId);
      if (answer.status === 400) {
        const detail = JSON.stringify(answer.body).slice(0, 500);
        if (++badRequests > MAX_BAD_REQUEST_POLLS) {
          throw new SpadeError(
            "E_POLICY_HTTP",
            `request ${requestId} failed: retrieve_future answered HTTP 400 ${MAX_BAD_REQUEST_POLLS + 1} times: ${detail}`,
            { nextStep: "the server rejected the request: read its message" },
          );
        }
        continue;
      }
      if (answer.bytes) {
        if (!decodeProtobuf)
          throw new SpadeError(
            "E_POLICY_OUTPUT",
            `request ${requestId}'s result came as protobuf, which SPADE does not decode for this call`,
            { nextStep: "report this server: it answered protobuf without being asked" },
          );
        return decodeProtobuf(answer.bytes);
      }
      const body = (answer.body ?? {}) as Record<string, unknown>;
      if (body.status === "complete_metadata" && allowMetadataOnly) {
        allowMetadataOnly = false;
        continue;
      }
      if (body.type === "try_again") {
        await this.clock.sleep(this.options.pollIntervalMs ?? 100, signal);
        continue;
      }
      if (body.error !== undefined) {
        const category = typeof body.category === "string" ? body.category : "unknown";
        throw new SpadeError(
          "E_POLICY_HTTP",
          `request ${requestId} failed on the server (${category}): ${String(body.error).slice(0, 500)}`,
          {
            nextStep:
              category === "user"
                ? "the server rejected the request: read its message"
                : "check the server's log",
          },
        );
      }
      return body;
    }
  }

  /** Stops the heartbeat. The session ends on the server when its heartbeats stop. */
  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private startHeartbeat(sessionId: string): void {
    const periodMs = this.options.heartbeatMs ?? 10_000;
    if (periodMs <= 0 || this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      const body = JSON.stringify({ session_id: sessionId, type: "session_heartbeat" });
      // A missed heartbeat is harmless; the next one follows.
      (this.jwt ? this.jwt.token() : Promise.resolve(this.apiKey))
        .then((key) =>
          this.fetchImpl(`${this.baseURL}/api/v1/session_heartbeat`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": key },
            body,
          }),
        )
        .then(
          (r) => r.body?.cancel(),
          () => {},
        );
    }, periodMs);
    // The heartbeat alone must not keep the process alive.
    this.heartbeat.unref?.();
  }

  /** Judges one failed attempt for the retry loop. */
  private classify(
    url: string,
    err: unknown,
    timedOut: boolean,
    nowMs: number,
    timeoutMs: number | undefined,
  ): AttemptFailure {
    if (timedOut) {
      return {
        retryable: true,
        retryAfterMs: null,
        code: "E_POLICY_TIMEOUT",
        message: `${url} gave no answer within ${timeoutMs ?? 600_000} ms`,
        nextStep:
          "raise the request timeout (--request-timeout), or check that the server is not stuck",
        cause: err,
      };
    }
    if (err instanceof StatusError) {
      const advice =
        err.status === 401 || err.status === 403
          ? "check the API key variable (--api-key-env)"
          : err.status === 404 || err.status === 405
            ? `check --base-url (${this.baseURL}: the server root; /api/v1/... is added), the model name, and whether the server supports this endpoint`
            : isRetryableStatus(err.status)
              ? "the server is overloaded or failing: lower the concurrency, or check its log"
              : "the server rejected the request: read its message";
      // The server may say itself whether to retry (`x-should-retry`), which the SDK obeys over the status.
      const says = err.headers.get("x-should-retry");
      const retryable =
        says === "true" ? true : says === "false" ? false : isRetryableStatus(err.status);
      return {
        retryable,
        retryAfterMs: retryAfterMs(err.headers, nowMs),
        code: "E_POLICY_HTTP",
        message: `${url} answered ${err.message}`,
        nextStep: advice,
        cause: err,
      };
    }
    if (err instanceof SpadeError) return failureOf(err, false);
    if (err instanceof BodyInterruptedError)
      return {
        retryable: true,
        retryAfterMs: null,
        code: "E_POLICY_HTTP",
        message: err.message,
        nextStep: "check the server's log",
        cause: err,
      };
    const detail =
      err instanceof Error
        ? ((err.cause as Error | undefined)?.message ?? err.message)
        : String(err);
    return {
      retryable: true,
      retryAfterMs: null,
      code: "E_POLICY_HTTP",
      message: `could not reach ${url}: ${detail}`,
      nextStep: "check that the server is running and --base-url is right",
      cause: err,
    };
  }
}
