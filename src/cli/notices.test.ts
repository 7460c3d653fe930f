import { describe, expect, it } from "vitest";
import type { RetryNotice } from "../policy/index.js";
import { retryNotices } from "./notices.js";

const notice = (retry: number): RetryNotice => ({
  retry,
  maxRetries: 4,
  waitMs: 2_000,
  budgetLeftMs: 60_000,
  failure: { retryable: true, retryAfterMs: null, code: "E_POLICY_HTTP", message: "http://s/v1/chat/completions answered HTTP 503: busy" },
});

describe("retryNotices", () => {
  it("prints the first notice at once, then at most one per interval with a count of those left out", () => {
    const lines: string[] = [];
    let now = 0;
    const sink = retryNotices((line) => lines.push(line), () => now, 5_000);
    sink(notice(1));
    now = 1_000;
    sink(notice(2));
    now = 4_999;
    sink(notice(1));
    now = 5_000;
    sink(notice(3));
    now = 10_000;
    sink(notice(4));
    expect(lines).toEqual([
      "spade: model server: E_POLICY_HTTP: http://s/v1/chat/completions answered HTTP 503: busy; retry 1 of 4 in 2.0 s (retry budget left 60 s)\n",
      "spade: model server: E_POLICY_HTTP: http://s/v1/chat/completions answered HTTP 503: busy; retry 3 of 4 in 2.0 s (retry budget left 60 s) (and 2 other retries since the last notice)\n",
      "spade: model server: E_POLICY_HTTP: http://s/v1/chat/completions answered HTTP 503: busy; retry 4 of 4 in 2.0 s (retry budget left 60 s)\n",
    ]);
  });
});
