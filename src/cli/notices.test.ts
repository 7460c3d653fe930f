import { describe, expect, it } from "vitest";
import type { RetryNotice, SlowNotice } from "../policy/index.js";
import { serverNotices } from "./notices.js";

const notice = (retry: number): RetryNotice => ({
  retry,
  maxRetries: 4,
  waitMs: 2_000,
  budgetLeftMs: 60_000,
  failure: {
    retryable: true,
    retryAfterMs: null,
    code: "E_POLICY_HTTP",
    message: "http://s/v1/chat/completions answered HTTP 503: busy",
  },
});

/** A request to the chat endpoint still unanswered after 60 s. */
const slow = (attempt: number, timeoutMs: number): SlowNotice => ({
  label: "http://s/v1/chat/completions",
  attempt,
  waitedMs: 60_000,
  timeoutMs,
});

describe("serverNotices", () => {
  it("prints the first notice at once, then at most one per interval with a count of those left out", () => {
    const lines: string[] = [];
    let now = 0;
    const sink = serverNotices(
      (line) => lines.push(line),
      () => now,
      5_000,
    );
    sink.onRetry(notice(1));
    now = 1_000;
    sink.onRetry(notice(2));
    now = 4_999;
    sink.onSlow(slow(1, 600_000));
    now = 5_000;
    sink.onRetry(notice(3));
    now = 10_000;
    sink.onSlow(slow(2, 599_500));
    expect(lines).toEqual([
      "spade: model server: E_POLICY_HTTP: http://s/v1/chat/completions answered HTTP 503: busy; retry 1 of 4 in 2.0 s (retry budget left 60 s)\n",
      "spade: model server: E_POLICY_HTTP: http://s/v1/chat/completions answered HTTP 503: busy; retry 3 of 4 in 2.0 s (retry budget left 60 s) (and 2 other notices since the last one)\n",
      "spade: model server: still waiting for http://s/v1/chat/completions after 60 s (attempt 2; abandoned and retried after 600 s)\n",
    ]);
  });
});
