import { describe, expect, it } from "vitest";
import type { SpadeError } from "../errors.js";
import { recordingClock } from "./testing/clock.js";
import type { HttpAnswer } from "./tinker-http-body.js";
import { FutureExpiredError } from "./tinker-http-errors.js";
import { type FuturePolling, pollFuture } from "./tinker-http-futures.js";

/** TEST DOUBLE: a `request` that answers `answers` in order and records each poll's body. */
function scriptedPolls(answers: HttpAnswer[], via: Partial<FuturePolling> = {}) {
  const polls: unknown[] = [];
  const polling: FuturePolling = {
    clock: recordingClock(),
    ...via,
    request: async (path, body) => {
      polls.push([path, body]);
      const next = answers.shift();
      if (!next) throw new Error("script exhausted");
      return next;
    },
  };
  return { polls, polling };
}

describe("pollFuture", () => {
  it("polls again at once after a 408, waits pollIntervalMs after try_again, and returns the result", async () => {
    const clock = recordingClock();
    const { polls, polling } = scriptedPolls(
      [
        { status: 408, body: null },
        { status: 200, body: { type: "try_again" } },
        { status: 200, body: { loss: 0.5 } },
      ],
      { clock, pollIntervalMs: 250 },
    );
    expect(await pollFuture(polling, "9")).toEqual({ loss: 0.5 });
    expect(clock.sleeps).toEqual([250]);
    expect(polls).toEqual(
      Array(3).fill(["/api/v1/retrieve_future", { request_id: "9", allow_metadata_only: true }]),
    );
  });

  it("fails a dropped future with FutureExpiredError and a failed one with E_POLICY_HTTP", async () => {
    const dropped = scriptedPolls([{ status: 410, body: null }]);
    await expect(pollFuture(dropped.polling, "1")).rejects.toBeInstanceOf(FutureExpiredError);
    const failed = scriptedPolls([
      { status: 200, body: { error: "bad tokens", category: "user" } },
      { status: 200, body: { error: "worker died" } },
    ]);
    const user = (await pollFuture(failed.polling, "2").catch((e: unknown) => e)) as SpadeError;
    expect([user.code, user.message]).toEqual([
      "E_POLICY_HTTP",
      "request 2 failed on the server (user): bad tokens (the server rejected the request: read its message)",
    ]);
    const server = (await pollFuture(failed.polling, "3").catch((e: unknown) => e)) as SpadeError;
    expect(server.message).toBe(
      "request 3 failed on the server (unknown): worker died (check the server's log)",
    );
  });

  it("fails with E_POLICY_TIMEOUT once the clock passes futureTimeoutMs, before polling again", async () => {
    let nowMs = 0;
    const clock = { ...recordingClock(), now: () => nowMs };
    const { polls, polling } = scriptedPolls([{ status: 408, body: null }], {
      clock,
      futureTimeoutMs: 1_000,
    });
    const late = {
      ...polling,
      request: async (...args: Parameters<FuturePolling["request"]>) => {
        nowMs = 1_001;
        return polling.request(...args);
      },
    };
    const err = (await pollFuture(late, "4").catch((e: unknown) => e)) as SpadeError;
    expect([err.code, err.message]).toEqual([
      "E_POLICY_TIMEOUT",
      "request 4 was not done within 1000 ms (raise futureTimeoutMs, or check the server's queue)",
    ]);
    expect(polls.length).toBe(1);
  });
});
