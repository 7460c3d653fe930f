/**
 * @module policy/tinker-http
 * The HTTP layer shared by SPADE's Tinker-compatible clients (Tinker, SkyRL tx, verl's gateway,
 * TuFT): `/api/v1/...` POSTs with the key (or the JWT the service exchanged for it) in
 * `X-API-Key`, retries by `retry.ts`, the start-up handshake of the official SDK
 * (tinker-handshake.ts), the session (`create_session`, heartbeats) and sequence ids. Bodies,
 * failures and futures polling have their own modules (tinker-http-body/-errors/-futures.ts).
 */
import { randomUUID } from "node:crypto";
import { resolveApiKey } from "./openai.js";
import { REAL_CLOCK, type RetryClock, type RetrySettings, withRetries } from "./retry.js";
import {
  DEFAULT_CLIENT_CONFIG,
  JwtAuth,
  parseClientConfig,
  TINKER_SDK_VERSION,
  type TinkerClientConfig,
} from "./tinker-handshake.js";
import { type BodyEncoding, type HttpAnswer, JSON_BODY, readAnswer } from "./tinker-http-body.js";
import { classifyAttempt } from "./tinker-http-errors.js";
import { answeredId, pollFuture } from "./tinker-http-futures.js";

export { type BodyEncoding, type HttpAnswer, JSON_BODY } from "./tinker-http-body.js";
export { FutureExpiredError } from "./tinker-http-errors.js";
export { answeredId, submitSample } from "./tinker-http-futures.js";

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
  /** One attempt of this request is abandoned after this, instead of the client's `retry.timeoutMs`. */
  timeoutMs?: number;
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
  /** Aborts the heartbeat in flight, if one is. */
  private beat: AbortController | null = null;
  private closed = false;
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
    const timeoutMs = opts.timeoutMs ?? this.options.retry?.timeoutMs;
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
        return readAnswer(
          response,
          url,
          this.options.maxAnswerBytes ?? DEFAULT_TINKER_MAX_ANSWER_BYTES,
          opts.passStatuses,
        );
      },
      {
        options: {
          ...this.options.retry,
          ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }),
          ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
        },
        clock: this.clock,
        signal: opts.signal,
        onRetry: this.options.onRetry,
        onSlow: this.options.onSlow,
        label: url,
        classify: (err, timedOut, nowMs) =>
          classifyAttempt(url, this.baseURL, err, timedOut, nowMs, timeoutMs),
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
    const via = {
      request: this.request.bind(this),
      clock: this.clock,
      pollIntervalMs: this.options.pollIntervalMs,
      futureTimeoutMs: this.options.futureTimeoutMs,
    };
    return pollFuture(via, requestId, signal, decodeProtobuf);
  }

  /**
   * Stops the heartbeat: the timer, and the beat in flight, aborted (its connection and timeout
   * go with it, so nothing of the client outlives this call by a period). No heartbeat starts
   * after it, not even for a session still being created. The session ends on the server when
   * its heartbeats stop.
   */
  close(): void {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.beat?.abort();
    this.beat = null;
  }

  private startHeartbeat(sessionId: string): void {
    const periodMs = this.options.heartbeatMs ?? 10_000;
    if (periodMs <= 0 || this.heartbeat || this.closed) return;
    // Each beat is a request like the others (timed out by `withRetries`), within one period and
    // never retried; a beat still out skips the tick, so a silent server cannot make them pile up.
    const timeoutMs = Math.min(periodMs, this.options.retry?.timeoutMs ?? periodMs);
    this.heartbeat = setInterval(() => {
      if (this.beat) return;
      const beat = new AbortController();
      this.beat = beat;
      const body = { session_id: sessionId, type: "session_heartbeat" };
      this.request("/api/v1/session_heartbeat", body, {
        maxRetries: 0,
        timeoutMs,
        signal: beat.signal,
      })
        .catch(() => {}) // A missed heartbeat is harmless; the next one follows.
        .finally(() => {
          if (this.beat === beat) this.beat = null;
        });
    }, periodMs);
    // The heartbeat alone must not keep the process alive.
    this.heartbeat.unref?.();
  }
}
