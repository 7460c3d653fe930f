import { describe, expect, it } from "vitest";
import { SpadeError, isSpadeError } from "../errors.js";
import { Limiter } from "./limiter.js";
import {
  DEFAULT_RETRY,
  backoffMs,
  formatRetryNotice,
  formatSlowNotice,
  isRetryableStatus,
  retryAfterMs,
  withRetries,
  type AttemptFailure,
  type RetryClock,
  type RetryNotice,
  type SlowNotice,
} from "./retry.js";
import { recordingClock } from "./testing/clock.js";

/** Sleeps recorded; `now` stands at 2026-01-01 for Retry-After dates. */
const fakeClock = (options: { randoms?: number[] } = {}) =>
  recordingClock({ nowMs: Date.parse("2026-01-01T00:00:00Z"), ...options });

const headers = (h: Record<string, string>) => new Headers(h);

/** Classifies errors thrown as `{status, headers}` objects by the test attempts. */
function classify(err: unknown, timedOut: boolean, nowMs: number): AttemptFailure {
  if (timedOut)
    return {
      retryable: true,
      retryAfterMs: null,
      code: "E_POLICY_TIMEOUT",
      message: "no answer",
      nextStep: "wait longer",
    };
  const e = err as { status: number; headers?: Headers };
  return {
    retryable: isRetryableStatus(e.status),
    retryAfterMs: retryAfterMs(e.headers, nowMs),
    code: "E_POLICY_HTTP",
    message: `HTTP ${e.status}`,
    nextStep: "check the server",
  };
}

describe("retry policy pieces", () => {
  it("retries exactly 408, 409, 429 and 5xx", () => {
    expect(
      [400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 599].map(isRetryableStatus),
    ).toEqual([false, false, false, false, true, true, false, true, true, true, true, true]);
  });

  it("reads retry-after-ms, retry-after seconds and HTTP dates", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(
      3000,
    );
    expect(retryAfterMs(headers({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(retryAfterMs(headers({}), now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });

  it("doubles the backoff up to the cap and jitters it down by at most 25%", () => {
    const o = { ...DEFAULT_RETRY, initialDelayMs: 100, maxDelayMs: 500 };
    expect([0, 1, 2, 3, 4].map((r) => backoffMs(r, o, () => 0))).toEqual([100, 200, 400, 500, 500]);
    expect(backoffMs(1, o, () => 0.5)).toBe(175);
    expect(backoffMs(0, o, () => 0.999999)).toBeCloseTo(75, 3);
  });
});

describe("withRetries", () => {
  it("retries retryable failures with backoff, then succeeds", async () => {
    const clock = fakeClock({ randoms: [0, 0.5] });
    let calls = 0;
    const result = await withRetries(
      async () => {
        if (++calls < 4) throw { status: 503 };
        return "ok";
      },
      { classify, clock, options: { initialDelayMs: 100, maxDelayMs: 10_000 } },
    );
    expect([result, calls, clock.sleeps]).toEqual(["ok", 4, [100, 175, 400]]);
  });

  it("honours retry-after (capped by maxRetryAfterMs) instead of backoff", async () => {
    const clock = fakeClock();
    const failures = [
      { status: 429, headers: headers({ "retry-after": "3" }) },
      { status: 429, headers: headers({ "retry-after-ms": "70" }) },
      { status: 429, headers: headers({ "retry-after": "120" }) },
    ];
    let calls = 0;
    await withRetries(
      async () => {
        const f = failures[calls++];
        if (f) throw f;
        return null;
      },
      { classify, clock, options: { maxRetryAfterMs: 60_000 } },
    );
    expect(clock.sleeps).toEqual([3000, 70, 60_000]);
  });

  it.each([
    {
      name: "gives up after maxRetries with the classified code and the number of attempts",
      status: 500,
      options: { maxRetries: 2, initialDelayMs: 10 },
      attempts: 3,
      sleeps: [10, 20],
      message: "HTTP 500 (3 attempts) (check the server)",
    },
    {
      name: "does not retry a non-retryable status",
      status: 400,
      options: {},
      attempts: 1,
      sleeps: [],
      message: "HTTP 400 (1 attempt) (check the server)",
    },
  ])("$name", async ({ status, options, attempts, sleeps, message }) => {
    const clock = fakeClock();
    let calls = 0;
    const err = await withRetries(
      async () => {
        calls++;
        throw { status };
      },
      { classify, clock, options },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpadeError);
    expect([calls, clock.sleeps, (err as SpadeError).code, (err as SpadeError).message]).toEqual([
      attempts,
      sleeps,
      "E_POLICY_HTTP",
      message,
    ]);
  });

  it("aborts an attempt that runs past timeoutMs and reports E_POLICY_TIMEOUT", async () => {
    const clock = fakeClock();
    let calls = 0;
    const hang = (signal: AbortSignal) =>
      new Promise<never>((_, reject) => {
        calls++;
        signal.addEventListener("abort", () => reject(new Error("aborted")));
      });
    const err = await withRetries(hang, {
      classify,
      clock,
      options: { maxRetries: 1, timeoutMs: 30, initialDelayMs: 5 },
    }).catch((e: unknown) => e);
    expect(calls).toBe(2);
    expect(isSpadeError(err, "E_POLICY_TIMEOUT")).toBe(true);
    expect((err as SpadeError).message).toBe("no answer (2 attempts) (wait longer)");
  });

  it("stops with E_CANCELLED when the caller's signal aborts mid-attempt", async () => {
    const controller = new AbortController();
    let calls = 0;
    const attempt = (signal: AbortSignal) =>
      new Promise<never>((_, reject) => {
        calls++;
        signal.addEventListener("abort", () => reject(new Error("aborted")));
        setTimeout(() => controller.abort(), 5);
      });
    const err = await withRetries(attempt, {
      classify,
      clock: fakeClock(),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect([calls, isSpadeError(err, "E_CANCELLED")]).toEqual([1, true]);
  });

  it("holds a limiter slot only during attempts", async () => {
    const limiter = new Limiter(1);
    const activeDuringAttempts: number[] = [];
    const activeDuringSleeps: number[] = [];
    const clock: RetryClock = {
      now: () => 0,
      random: () => 0,
      sleep: async () => void activeDuringSleeps.push(limiter.active),
    };
    let calls = 0;
    await withRetries(
      async () => {
        activeDuringAttempts.push(limiter.active);
        if (++calls < 3) throw { status: 502 };
        return 1;
      },
      { classify, clock, limiter },
    );
    expect([activeDuringAttempts, activeDuringSleeps, limiter.active]).toEqual([
      [1, 1, 1],
      [0, 0],
      0,
    ]);
  });

  it("stops before a wait that would end past the total budget, and tells each retry", async () => {
    // TEST DOUBLE: a clock whose sleeps move time on; each attempt takes 1 s of it.
    let now = 0;
    const clock: RetryClock = {
      now: () => now,
      random: () => 0,
      sleep: async (ms) => void (now += ms),
    };
    const notices: RetryNotice[] = [];
    let calls = 0;
    const err = await withRetries(
      async () => {
        calls++;
        now += 1_000;
        throw { status: 503 };
      },
      {
        classify,
        clock,
        options: { maxRetries: 10, initialDelayMs: 1_000, maxDelayMs: 60_000, budgetMs: 10_000 },
        onRetry: (n) => notices.push(n),
      },
    ).catch((e: unknown) => e);
    // Attempts end at 1 s, 3 s (after a 1 s wait), 6 s (2 s wait); the next wait (4 s) would end at 10 s.
    expect([calls, now]).toEqual([3, 6_000]);
    expect(notices.map((n) => [n.retry, n.waitMs, n.budgetLeftMs])).toEqual([
      [1, 1_000, 8_000],
      [2, 2_000, 5_000],
    ]);
    expect(isSpadeError(err, "E_POLICY_HTTP")).toBe(true);
    expect((err as SpadeError).message).toBe(
      "HTTP 503 (3 attempts; the retry budget of 10 s is spent) (check the server)",
    );
    expect(formatRetryNotice(notices[1]!)).toBe(
      "E_POLICY_HTTP: HTTP 503; retry 2 of 10 in 2.0 s (retry budget left 5.0 s)",
    );
  });

  it("cuts an attempt's timeout to the budget left", async () => {
    const err = await withRetries(
      (signal) =>
        new Promise<never>((_, reject) =>
          signal.addEventListener("abort", () => reject(new Error("aborted"))),
        ),
      {
        classify,
        options: { timeoutMs: 60_000, budgetMs: 50 },
      },
    ).catch((e: unknown) => e);
    expect((err as SpadeError).message).toBe(
      "no answer (1 attempt; the retry budget of 0.05 s is spent) (wait longer)",
    );
  });

  it("reports an attempt still unanswered after noticeAfterMs, once, and none that answers sooner", async () => {
    const slow: SlowNotice[] = [];
    const answerAfter = (ms: number) => () =>
      new Promise<string>((resolve) => setTimeout(() => resolve("ok"), ms));
    const run = {
      classify,
      onSlow: (n: SlowNotice) => slow.push(n),
      label: "http://s/x",
      options: { noticeAfterMs: 30, timeoutMs: 5_000 },
    };
    expect(await withRetries(answerAfter(150), run)).toBe("ok");
    expect(await withRetries(answerAfter(1), run)).toBe("ok");
    expect(slow).toEqual([{ label: "http://s/x", attempt: 1, waitedMs: 30, timeoutMs: 5_000 }]);
    expect(
      formatSlowNotice({ label: "http://s/x", attempt: 2, waitedMs: 60_000, timeoutMs: 600_000 }),
    ).toBe(
      "still waiting for http://s/x after 60 s (attempt 2; abandoned and retried after 600 s)",
    );
  });
});
