import { describe, expect, it } from "vitest";
import { SpadeError } from "../errors.js";
import { isOutageFailure, OutageBreaker } from "./outage.js";

const refused = () => new SpadeError("E_POLICY_HTTP", "could not reach http://x/v1: fetch failed");
const slow = () => new SpadeError("E_POLICY_TIMEOUT", "no answer within 1 s");
const NEXT = "continue with: spade run --resume DIR";

/** Ends one request of `breaker` with `outcome` (an error: failed; anything else: answered). */
async function end(breaker: OutageBreaker, outcome: unknown): Promise<void> {
  await breaker
    .watch(() => (outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome)))
    .catch(() => {});
}

describe("isOutageFailure", () => {
  it.each([
    ["E_POLICY_HTTP", true],
    ["E_POLICY_TIMEOUT", true],
    ["E_POLICY_OUTPUT", false],
    ["E_POLICY_CONTEXT", false],
    ["E_POLICY_TOOL_CALL", false],
    ["E_CANCELLED", false],
  ] as const)("%s -> %s", (code, expected) => {
    expect(isOutageFailure(new SpadeError(code, "x"))).toBe(expected);
  });

  it("a plain Error is not one", () => {
    expect(isOutageFailure(new Error("E_POLICY_HTTP"))).toBe(false);
  });
});

describe("OutageBreaker", () => {
  it("trips on the after-th outage failure in a row, with the last failure and the next step", async () => {
    const breaker = new OutageBreaker({ after: 3, nextStep: NEXT });
    await end(breaker, refused());
    await end(breaker, slow());
    expect(breaker.signal.aborted).toBe(false);
    expect(breaker.error).toBeNull();
    await end(breaker, refused());
    expect(breaker.signal.aborted).toBe(true);
    expect(breaker.error?.code).toBe("E_POLICY_UNAVAILABLE");
    expect(breaker.error?.message).toBe(
      "3 model requests in a row failed after their retries, none answered in between (the last: E_POLICY_HTTP: could not reach http://x/v1: fetch failed); stopped so that no more work fails (continue with: spade run --resume DIR)",
    );
    expect(breaker.signal.reason).toBe(breaker.error);
  });

  it("an answered request starts the count again", async () => {
    const breaker = new OutageBreaker({ after: 2, nextStep: NEXT });
    await end(breaker, refused());
    await end(breaker, "an answer");
    await end(breaker, refused());
    expect(breaker.error).toBeNull();
    await end(breaker, refused());
    expect(breaker.error?.code).toBe("E_POLICY_UNAVAILABLE");
  });

  it("failures that are not the server's neither count nor reset the count", async () => {
    const breaker = new OutageBreaker({ after: 2, nextStep: NEXT });
    await end(breaker, refused());
    await end(breaker, new SpadeError("E_POLICY_OUTPUT", "no choices"));
    await end(breaker, new SpadeError("E_CANCELLED", "cancelled"));
    await end(breaker, new Error("a bug"));
    expect(breaker.error).toBeNull();
    await end(breaker, slow());
    expect(breaker.error?.message).toContain("(the last: E_POLICY_TIMEOUT: no answer within 1 s)");
  });

  it("once tripped it stays tripped, with the first reason", async () => {
    const breaker = new OutageBreaker({ after: 1, nextStep: NEXT });
    await end(breaker, slow());
    const first = breaker.error;
    await end(breaker, "an answer");
    await end(breaker, refused());
    expect(breaker.error).toBe(first);
    expect(breaker.error?.message).toContain("E_POLICY_TIMEOUT");
  });

  it("watch passes results and failures on unchanged", async () => {
    const breaker = new OutageBreaker({ after: 5, nextStep: NEXT });
    await expect(breaker.watch(async () => 42)).resolves.toBe(42);
    const err = refused();
    await expect(breaker.watch(() => Promise.reject(err))).rejects.toBe(err);
  });

  it("wrap watches every call and keeps the function's properties", async () => {
    const breaker = new OutageBreaker({ after: 2, nextStep: NEXT });
    let calls = 0;
    const agent = Object.assign(
      async (fail: boolean) => {
        calls++;
        if (fail) throw refused();
        return "action";
      },
      { trace: () => "the trace" },
    );
    const watched = breaker.wrap(agent);
    expect(watched.trace()).toBe("the trace");
    await expect(watched(false)).resolves.toBe("action");
    await expect(watched(true)).rejects.toMatchObject({ code: "E_POLICY_HTTP" });
    await expect(watched(true)).rejects.toMatchObject({ code: "E_POLICY_HTTP" });
    expect(calls).toBe(3);
    expect(breaker.error?.code).toBe("E_POLICY_UNAVAILABLE");
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses after = %s with E_CONFIG", (after) => {
    expect(() => new OutageBreaker({ after, nextStep: NEXT })).toThrowError(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });
});
