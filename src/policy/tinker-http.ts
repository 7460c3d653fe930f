/**
 * @module policy/tinker-http
 * The HTTP layer shared by SPADE's Tinker-compatible clients (Tinker, SkyRL tx, verl's gateway,
 * TuFT): `/api/v1/...` POSTs with the key in `X-API-Key`, retries by `retry.ts`, a replaceable
 * body encoding (JSON by default; Tinker's SDK sends `forward_backward` as protobuf), the
 * session (`create_session`, heartbeats), sequence ids, and futures polling (`retrieve_future`
 * with `try_again` and long-poll 408s). The sampling client is built on it; training calls
 * (`forward_backward`, `optim_step`, `save_weights_for_sampler`) are added next to it.
 */
import { randomUUID } from "node:crypto";
import { SpadeError } from "../errors.js";
import { resolveApiKey } from "./openai.js";
import { BodyInterruptedError, readBodyCapped } from "./http-body.js";
import { failureOf, isRetryableStatus, REAL_CLOCK, retryAfterMs, withRetries, type AttemptFailure, type RetryClock, type RetryNotice, type RetryOptions, type SlowNotice } from "./retry.js";

/** How a request body is put on the wire. */
export interface BodyEncoding {
  contentType: string;
  encode(body: unknown): string | Uint8Array;
}

/** JSON bodies (every endpoint of SkyRL tx; Tinker's JSON endpoints). */
export const JSON_BODY: BodyEncoding = { contentType: "application/json", encode: (body) => JSON.stringify(body) };

/** Settings of the Tinker HTTP layer. */
export interface TinkerHttpOptions {
  /** Server root, e.g. `http://127.0.0.1:8000` (`/api/v1/...` is appended; a trailing `/api/v1` is accepted). */
  baseURL: string;
  /** Name of the environment variable holding the API key (sent as `X-API-Key`). Unset: the key `EMPTY`. */
  apiKeyEnv?: string;
  /** Where `apiKeyEnv` is looked up. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Retries, per-attempt timeout and total budget of each POST; see `DEFAULT_RETRY`. */
  retry?: RetryOptions;
  /** Told before each retry wait (the CLI prints a notice). Default: nothing. */
  onRetry?: (notice: RetryNotice) => void;
  /** Told when an attempt is unanswered after `retry.noticeAfterMs`. Default: nothing. */
  onSlow?: (notice: SlowNotice) => void;
  /**
   * Largest answer body accepted, in bytes; a larger one fails with E_POLICY_OUTPUT. Default
   * 256 MiB (training answers carry per-token outputs of a whole batch).
   */
  maxAnswerBytes?: number;
  /** Clock for waits. Default the real one. */
  clock?: RetryClock;
  /** `fetch` to use. Default the global one. */
  fetch?: typeof fetch;
  /** Wait after a `try_again` answer before polling again (servers long-poll before answering it). Default 100 ms. */
  pollIntervalMs?: number;
  /** A future not done after this fails with E_POLICY_TIMEOUT. Default 1,800,000 ms (30 min). */
  futureTimeoutMs?: number;
  /** Session heartbeat period (Tinker ends sessions without them); 0 disables. Default 10,000 ms. */
  heartbeatMs?: number;
  /** `sdk_version` sent with `create_session`. Default `spade-0.1.0`. */
  sdkVersion?: string;
  /** `tags` sent with `create_session`. Default none. */
  tags?: string[];
}

/** Default of `TinkerHttpOptions.maxAnswerBytes`. */
export const DEFAULT_TINKER_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** An HTTP answer with a status the caller handles itself (e.g. a long-poll 408). */
export interface HttpAnswer {
  status: number;
  body: unknown;
}

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
    super("E_POLICY_HTTP", `the server dropped the result of request ${requestId} (HTTP 410)`, { nextStep: "submit the request again" });
  }
}

/** The HTTP client of one Tinker-compatible server: one session, shared by its sampling and training clients. */
export class TinkerHttp {
  /** The server root without a trailing slash. */
  readonly baseURL: string;
  private readonly apiKey: string;
  private readonly clock: RetryClock;
  private readonly fetchImpl: typeof fetch;
  private sessionId: Promise<string> | null = null;
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
  async request(path: string, body: unknown, opts: { signal?: AbortSignal; encoding?: BodyEncoding; passStatuses?: number[] } = {}): Promise<HttpAnswer> {
    const encoding = opts.encoding ?? JSON_BODY;
    const payload = encoding.encode(body);
    const headers = { "content-type": encoding.contentType, accept: "application/json", "x-api-key": this.apiKey, "x-idempotency-key": `spade-${randomUUID()}` };
    const url = `${this.baseURL}${path}`;
    const timeoutMs = this.options.retry?.timeoutMs;
    return withRetries(
      async (signal) => {
        const response = await this.fetchImpl(url, { method: "POST", headers, body: payload, signal });
        const text = new TextDecoder().decode(await readBodyCapped(response, url, this.options.maxAnswerBytes ?? DEFAULT_TINKER_MAX_ANSWER_BYTES));
        if (!response.ok && !opts.passStatuses?.includes(response.status)) throw new StatusError(response.status, text, response.headers);
        let parsed: unknown = null;
        if (text.trim() !== "") {
          try {
            parsed = JSON.parse(text);
          } catch (cause) {
            throw new SpadeError("E_POLICY_OUTPUT", `${url} answered HTTP ${response.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`, {
              nextStep: "check the server's log; a proxy or a crashed worker may be cutting answers",
              cause,
            });
          }
        }
        return { status: response.status, body: parsed };
      },
      {
        options: this.options.retry,
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
  async post(path: string, body: unknown, opts: { signal?: AbortSignal; encoding?: BodyEncoding } = {}): Promise<unknown> {
    return (await this.request(path, body, opts)).body;
  }

  /** The session id, created on first use (`create_session`); starts the heartbeat. */
  session(signal?: AbortSignal): Promise<string> {
    this.sessionId ??= (async () => {
      const body = { tags: this.options.tags ?? [], user_metadata: {}, sdk_version: this.options.sdkVersion ?? "spade-0.1.0", type: "create_session" };
      const answer = (await this.post("/api/v1/create_session", body, { signal })) as { session_id?: unknown } | null;
      if (typeof answer?.session_id !== "string") throw new SpadeError("E_POLICY_OUTPUT", `create_session answered without a session_id: ${JSON.stringify(answer).slice(0, 200)}`);
      this.startHeartbeat(answer.session_id);
      return answer.session_id;
    })();
    this.sessionId.catch(() => (this.sessionId = null));
    return this.sessionId;
  }

  /**
   * Waits for the result of a submitted request: polls `retrieve_future`, again at once after a
   * long-poll 408, after `pollIntervalMs` on `try_again`. A result with `error` fails with
   * E_POLICY_HTTP; HTTP 410 with FutureExpiredError; past `futureTimeoutMs` with E_POLICY_TIMEOUT.
   */
  async awaitFuture(requestId: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const deadline = this.clock.now() + (this.options.futureTimeoutMs ?? 1_800_000);
    for (;;) {
      if (this.clock.now() > deadline) {
        throw new SpadeError("E_POLICY_TIMEOUT", `request ${requestId} was not done within ${this.options.futureTimeoutMs ?? 1_800_000} ms`, { nextStep: "raise futureTimeoutMs, or check the server's queue" });
      }
      const answer = await this.request("/api/v1/retrieve_future", { request_id: requestId }, { signal, passStatuses: [408, 410] });
      if (answer.status === 408) continue;
      if (answer.status === 410) throw new FutureExpiredError(requestId);
      const body = (answer.body ?? {}) as Record<string, unknown>;
      if (body.type === "try_again") {
        await this.clock.sleep(this.options.pollIntervalMs ?? 100, signal);
        continue;
      }
      if (body.error !== undefined) {
        const category = typeof body.category === "string" ? body.category : "unknown";
        throw new SpadeError("E_POLICY_HTTP", `request ${requestId} failed on the server (${category}): ${String(body.error).slice(0, 500)}`, {
          nextStep: category === "user" ? "the server rejected the request: read its message" : "check the server's log",
        });
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
      const headers = { "content-type": "application/json", "x-api-key": this.apiKey };
      // A missed heartbeat is harmless; the next one follows.
      this.fetchImpl(`${this.baseURL}/api/v1/session_heartbeat`, { method: "POST", headers, body }).then((r) => r.body?.cancel(), () => {});
    }, periodMs);
    // The heartbeat alone must not keep the process alive.
    this.heartbeat.unref?.();
  }

  /** Judges one failed attempt for the retry loop. */
  private classify(url: string, err: unknown, timedOut: boolean, nowMs: number, timeoutMs: number | undefined): AttemptFailure {
    if (timedOut) {
      return { retryable: true, retryAfterMs: null, code: "E_POLICY_TIMEOUT", message: `${url} gave no answer within ${timeoutMs ?? 600_000} ms`, nextStep: "raise the request timeout (--request-timeout), or check that the server is not stuck", cause: err };
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
      return { retryable: isRetryableStatus(err.status), retryAfterMs: retryAfterMs(err.headers, nowMs), code: "E_POLICY_HTTP", message: `${url} answered ${err.message}`, nextStep: advice, cause: err };
    }
    if (err instanceof SpadeError) return failureOf(err, false);
    if (err instanceof BodyInterruptedError) return { retryable: true, retryAfterMs: null, code: "E_POLICY_HTTP", message: err.message, nextStep: "check the server's log", cause: err };
    const detail = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    return { retryable: true, retryAfterMs: null, code: "E_POLICY_HTTP", message: `could not reach ${url}: ${detail}`, nextStep: "check that the server is running and --base-url is right", cause: err };
  }
}
