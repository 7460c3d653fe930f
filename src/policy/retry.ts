/**
 * @module policy/retry
 * The one retry policy of SPADE's HTTP clients: which failures are retried, how long to wait
 * (exponential backoff with jitter, or what `retry-after` says), per-attempt timeouts, and a
 * total budget that bounds the wall time of one request with all its retries.
 */
import { SpadeError, type ErrorCode } from "../errors.js";
import type { Limiter } from "./limiter.js";

/** Retry settings of an HTTP client. */
export interface RetryOptions {
  /** Retries after the first attempt (so at most maxRetries + 1 attempts). Default 4. */
  maxRetries?: number;
  /** Backoff before the first retry, doubled for each later one. Default 500 ms. */
  initialDelayMs?: number;
  /** Backoff never exceeds this. Default 8,000 ms. */
  maxDelayMs?: number;
  /** A server's `retry-after` is honoured up to this; longer waits are cut to it. Default 60,000 ms. */
  maxRetryAfterMs?: number;
  /** One attempt (waiting for a limiter slot not included) is abandoned after this. Default 600,000 ms. */
  timeoutMs?: number;
  /**
   * Total time for one request with all its attempts and waits, from its first attempt: no
   * attempt runs and no wait lasts past it. Default 1,800,000 ms (30 min).
   */
  budgetMs?: number;
  /** An attempt still unanswered after this is reported once through `onSlow`. Default 60,000 ms. */
  noticeAfterMs?: number;
}

/** The defaults of `RetryOptions`. */
export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 4,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 600_000,
  budgetMs: 1_800_000,
  noticeAfterMs: 60_000,
};

/** Share of a backoff that jitter may take away (a wait lies in [75%, 100%] of the backoff). */
export const JITTER = 0.25;

/** Time and chance, injected so tests can run retries without waiting. */
export interface RetryClock {
  /** Milliseconds since the epoch (used for HTTP-date `retry-after`). */
  now(): number;
  /** Waits `ms`; rejects with E_CANCELLED when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Uniform in [0, 1), for jitter. */
  random(): number;
}

/** The real clock: `Date.now`, `setTimeout`, `Math.random`. */
export const REAL_CLOCK: RetryClock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted)
        return reject(new SpadeError("E_CANCELLED", "a retry wait was cancelled"));
      const onAbort = () => {
        clearTimeout(timer);
        reject(new SpadeError("E_CANCELLED", "a retry wait was cancelled"));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** True for the HTTP statuses worth retrying: 408, 409, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Anything with `get(name)`, e.g. `Headers`. */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * The wait a server asked for, in ms, or null when it asked for none (or unparseably):
 * `retry-after-ms` first, else `retry-after` as seconds (fractions allowed) or an HTTP date.
 * Negative waits become 0.
 */
export function retryAfterMs(headers: HeaderSource | undefined, nowMs: number): number | null {
  const ms = headers?.get("retry-after-ms");
  if (ms != null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers?.get("retry-after");
  if (after == null || after.trim() === "") return null;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/** The backoff before retry number `retry` (0-based), jitter included. */
export function backoffMs(
  retry: number,
  options: Required<RetryOptions>,
  random: () => number,
): number {
  const base = Math.min(options.initialDelayMs * 2 ** retry, options.maxDelayMs);
  return base * (1 - JITTER * random());
}

/** How one failed attempt is judged. */
export interface AttemptFailure {
  /** Worth another attempt. */
  retryable: boolean;
  /** What the server asked for (`retryAfterMs`), or null. */
  retryAfterMs: number | null;
  /** Code of the error thrown when no attempt is left. */
  code: ErrorCode;
  /** What went wrong; the number of attempts is appended. */
  message: string;
  /** What the user can do about it. */
  nextStep?: string;
  /** The underlying error. */
  cause?: unknown;
}

/** One retried operation's settings. */
export interface RetryRun {
  options?: RetryOptions;
  clock?: RetryClock;
  /** Held during each attempt (not during waits between attempts). */
  limiter?: Limiter;
  /** Cancels waiting, sleeping and the attempt in flight; rejects with E_CANCELLED. */
  signal?: AbortSignal;
  /** Judges a failed attempt; `timedOut` says the attempt ran past `timeoutMs`. */
  classify: (err: unknown, timedOut: boolean, nowMs: number) => AttemptFailure;
  /** Called before each wait, e.g. to tell the user why nothing seems to happen. */
  onRetry?: (info: RetryNotice) => void;
  /** Called once per attempt still unanswered after `noticeAfterMs` (a hung or very slow server). */
  onSlow?: (info: SlowNotice) => void;
  /** What is being asked, for `onSlow` (e.g. the URL). */
  label?: string;
}

/**
 * The retry settings an HTTP client of SPADE takes from its caller (the OpenAI-compatible and
 * Tinker clients): the policy, the notice hooks and the clock.
 */
export interface RetrySettings {
  /** Retries, per-attempt timeout and total budget of each request; see `DEFAULT_RETRY`. */
  retry?: RetryOptions;
  /** Told before each retry wait (the CLI prints a notice). Default: nothing. */
  onRetry?: (notice: RetryNotice) => void;
  /** Told when an attempt is unanswered after `retry.noticeAfterMs`. Default: nothing. */
  onSlow?: (notice: SlowNotice) => void;
  /** Clock for waits (retry waits, and a client's polling waits). Default the real one. */
  clock?: RetryClock;
}

/** What `onSlow` is told about an attempt that is taking long. */
export interface SlowNotice {
  /** What is being asked (`RetryRun.label`). */
  label: string;
  /** 1-based number of the attempt. */
  attempt: number;
  /** How long it has been waiting. */
  waitedMs: number;
  /** When it will be abandoned, from its start. */
  timeoutMs: number;
}

/** One line for the user about a slow attempt. */
export function formatSlowNotice(notice: SlowNotice): string {
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  return `still waiting for ${notice.label} after ${s(notice.waitedMs)} (attempt ${notice.attempt}; abandoned and retried after ${s(notice.timeoutMs)})`;
}

/** What `onRetry` is told before a wait. */
export interface RetryNotice {
  /** Number of the retry about to happen (1 = the second attempt). */
  retry: number;
  /** Most retries allowed (`maxRetries`). */
  maxRetries: number;
  /** The wait before it. */
  waitMs: number;
  /** Budget left after the wait. */
  budgetLeftMs: number;
  /** Why the last attempt failed. */
  failure: AttemptFailure;
}

/** A SpadeError's message without the next step its constructor appended (to re-throw it with a count). */
export function bareMessage(err: SpadeError): string {
  const suffix = err.nextStep ? ` (${err.nextStep})` : "";
  return suffix && err.message.endsWith(suffix)
    ? err.message.slice(0, -suffix.length)
    : err.message;
}

/** A failure that keeps a SpadeError's code, message and next step. */
export function failureOf(err: SpadeError, retryable: boolean): AttemptFailure {
  return {
    retryable,
    retryAfterMs: null,
    code: err.code,
    message: bareMessage(err),
    nextStep: err.nextStep,
    cause: err,
  };
}

/** One line for the user about a retry (the CLI prints it on stderr). */
export function formatRetryNotice(notice: RetryNotice): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${notice.failure.code}: ${notice.failure.message}; retry ${notice.retry} of ${notice.maxRetries} in ${seconds(notice.waitMs)} (retry budget left ${seconds(notice.budgetLeftMs)})`;
}

/**
 * Runs `attempt` until it succeeds, fails for good, runs out of retries or out of budget. Each
 * attempt gets a signal that aborts on timeout (the per-attempt timeout or the budget left,
 * whichever comes first) or cancellation. The final error is the classified one, with the
 * number of attempts added to its message (and the budget, when that is what ended it).
 */
export async function withRetries<T>(
  attempt: (signal: AbortSignal, index: number) => Promise<T>,
  run: RetryRun,
): Promise<T> {
  const options = { ...DEFAULT_RETRY, ...run.options };
  const clock = run.clock ?? REAL_CLOCK;
  let deadline: number | null = null; // set when the first attempt starts (a limiter wait is not counted)
  for (let index = 0; ; index++) {
    const release = run.limiter ? await run.limiter.acquire(run.signal) : undefined;
    deadline ??= clock.now() + options.budgetMs;
    const attemptMs = Math.max(1, Math.min(options.timeoutMs, deadline - clock.now()));
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, attemptMs);
    const slow =
      run.onSlow && options.noticeAfterMs < attemptMs
        ? setTimeout(
            () =>
              run.onSlow?.({
                label: run.label ?? "a model server",
                attempt: index + 1,
                waitedMs: options.noticeAfterMs,
                timeoutMs: attemptMs,
              }),
            options.noticeAfterMs,
          )
        : undefined;
    const onAbort = () => controller.abort();
    run.signal?.addEventListener("abort", onAbort, { once: true });
    let failure: AttemptFailure;
    try {
      if (run.signal?.aborted) controller.abort();
      return await attempt(controller.signal, index);
    } catch (err) {
      if (run.signal?.aborted)
        throw new SpadeError("E_CANCELLED", "a model request was cancelled", { cause: err });
      failure = run.classify(err, timedOut, clock.now());
    } finally {
      clearTimeout(timer);
      clearTimeout(slow);
      run.signal?.removeEventListener("abort", onAbort);
      release?.();
    }
    const attempts = `${index + 1} attempt${index === 0 ? "" : "s"}`;
    if (!failure.retryable || index >= options.maxRetries) {
      throw new SpadeError(failure.code, `${failure.message} (${attempts})`, {
        nextStep: failure.nextStep,
        cause: failure.cause,
      });
    }
    const waitMs =
      failure.retryAfterMs !== null
        ? Math.min(failure.retryAfterMs, options.maxRetryAfterMs)
        : backoffMs(index, options, clock.random);
    const budgetLeftMs = deadline - clock.now() - waitMs;
    if (budgetLeftMs <= 0) {
      const budget = `${attempts}; the retry budget of ${options.budgetMs / 1000} s is spent`;
      throw new SpadeError(failure.code, `${failure.message} (${budget})`, {
        nextStep: failure.nextStep,
        cause: failure.cause,
      });
    }
    run.onRetry?.({
      retry: index + 1,
      maxRetries: options.maxRetries,
      waitMs,
      budgetLeftMs,
      failure,
    });
    await clock.sleep(waitMs, run.signal);
  }
}
