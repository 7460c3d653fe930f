/**
 * @module policy/tinker-http-errors
 * How the Tinker HTTP layer fails: a non-2xx answer inside an attempt, a future the server
 * dropped, and the judgement of a failed attempt for the retry loop (retry or not, code, advice).
 */
import { SpadeError } from "../errors.js";
import { BodyInterruptedError } from "./http-body.js";
import { type AttemptFailure, failureOf, isRetryableStatus, retryAfterMs } from "./retry.js";

/** A non-2xx answer, as thrown inside one attempt. */
export class StatusError extends Error {
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
 * Judges one failed attempt at `url` for the retry loop: a timeout, a non-2xx status (the
 * server's `x-should-retry` over the status), a coded error, a body cut off, or no connection.
 * `baseURL` is named in the advice for 404/405; `timeoutMs` in a timeout's message.
 */
export function classifyAttempt(
  url: string,
  baseURL: string,
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
          ? `check --base-url (${baseURL}: the server root; /api/v1/... is added), the model name, and whether the server supports this endpoint`
          : isRetryableStatus(err.status)
            ? "the server is overloaded or failing: lower the concurrency (--concurrency), or check its log"
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
    err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
  return {
    retryable: true,
    retryAfterMs: null,
    code: "E_POLICY_HTTP",
    message: `could not reach ${url}: ${detail}`,
    nextStep: "check that the server is running and --base-url is right",
    cause: err,
  };
}
