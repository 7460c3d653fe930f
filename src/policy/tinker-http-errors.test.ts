import { describe, expect, it } from "vitest";
import { SpadeError } from "../errors.js";
import { BodyInterruptedError } from "./http-body.js";
import { classifyAttempt, FutureExpiredError, StatusError } from "./tinker-http-errors.js";

const URL_ = "http://engine/api/v1/x";
const judge = (err: unknown, timedOut = false, timeoutMs?: number) => {
  const f = classifyAttempt(URL_, "http://engine", err, timedOut, 1_000, timeoutMs);
  return [f.retryable, f.retryAfterMs, f.code, f.message, f.nextStep];
};
const status = (code: number, headers: Record<string, string> = {}, text = "nope") =>
  new StatusError(code, text, new Headers(headers));

describe("classifyAttempt", () => {
  it("retries a timed-out attempt with E_POLICY_TIMEOUT, naming the timeout (default 600,000 ms)", () => {
    const advice =
      "raise the request timeout (--request-timeout), or check that the server is not stuck";
    expect(judge(new Error("aborted"), true)).toEqual([
      true,
      null,
      "E_POLICY_TIMEOUT",
      `${URL_} gave no answer within 600000 ms`,
      advice,
    ]);
    expect(judge(new Error("aborted"), true, 5_000)[3]).toBe(
      `${URL_} gave no answer within 5000 ms`,
    );
  });

  it("advises by status and retries only retryable ones, unless x-should-retry says otherwise", () => {
    expect(judge(status(401))).toEqual([
      false,
      null,
      "E_POLICY_HTTP",
      `${URL_} answered HTTP 401: nope`,
      "check the API key variable (--api-key-env)",
    ]);
    expect(judge(status(405))[4]).toBe(
      "check --base-url (http://engine: the server root; /api/v1/... is added), the model name, and whether the server supports this endpoint",
    );
    expect(judge(status(503, { "retry-after": "2" }))).toEqual([
      true,
      2_000,
      "E_POLICY_HTTP",
      `${URL_} answered HTTP 503: nope`,
      "the server is overloaded or failing: lower the concurrency (--concurrency), or check its log",
    ]);
    expect(judge(status(400, { "x-should-retry": "true" })).slice(0, 1)).toEqual([true]);
    expect(judge(status(503, { "x-should-retry": "false" })).slice(0, 1)).toEqual([false]);
    expect(judge(status(422))[4]).toBe("the server rejected the request: read its message");
    expect(judge(status(500, {}, "y".repeat(400)))[3]).toBe(
      `${URL_} answered HTTP 500: ${"y".repeat(300)}`,
    );
  });

  it("keeps a coded error unretried, and retries a cut-off body or an unreachable server", () => {
    const coded = new SpadeError("E_POLICY_OUTPUT", "too big", { nextStep: "lower it" });
    expect(judge(coded)).toEqual([false, null, "E_POLICY_OUTPUT", "too big", "lower it"]);
    expect(judge(new BodyInterruptedError(URL_, 11, new Error("reset")))).toEqual([
      true,
      null,
      "E_POLICY_HTTP",
      `the connection to ${URL_} broke off after 11 bytes of the answer: reset`,
      "check the server's log",
    ]);
    const refused = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") });
    expect(judge(refused)).toEqual([
      true,
      null,
      "E_POLICY_HTTP",
      `could not reach ${URL_}: connect ECONNREFUSED`,
      "check that the server is running and --base-url is right",
    ]);
    expect(judge("down")[3]).toBe(`could not reach ${URL_}: down`);
  });
});

describe("FutureExpiredError", () => {
  it("is E_POLICY_HTTP and says to submit again", () => {
    const err = new FutureExpiredError("42");
    expect([err.code, err.message]).toEqual([
      "E_POLICY_HTTP",
      "the server dropped the result of request 42 (HTTP 410) (submit the request again)",
    ]);
  });
});
