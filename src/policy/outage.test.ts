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

  it("says a single failure in the singular when it trips on the first", async () => {
    const breaker = new OutageBreaker({ after: 1, nextStep: NEXT });
    await end(breaker, refused());
    expect(breaker.error?.message).toBe(
      "a model request failed after its retries (E_POLICY_HTTP: could not reach http://x/v1: fetch failed); stopped so that no more work fails (continue with: spade run --resume DIR)",
    );
  });

  // Each row: `after`, how the requests end, in order (an answer or a thrown value), and the
  // request at which the breaker trips (1-based; null: it does not).
  const answer = () => "an answer";
  const output = () => new SpadeError("E_POLICY_OUTPUT", "no choices");
  const cancelled = () => new SpadeError("E_CANCELLED", "cancelled");
  const bug = () => new Error("a bug");
  it.each([
    ["an answered request starts the count again", 2, [refused, answer, refused], null],
    ["two in a row after an answer trip it", 2, [refused, answer, refused, slow], 4],
    [
      "failures that are not the server's neither count nor reset the count",
      2,
      [refused, output, cancelled, bug, slow],
      5,
    ],
    ["once tripped, later answers and failures change nothing", 1, [slow, answer, refused], 1],
  ] as const)("%s", async (_name, after, outcomes, tripsAt) => {
    const breaker = new OutageBreaker({ after, nextStep: NEXT });
    let tripped: number | null = null;
    let first: SpadeError | null = null;
    for (const [i, outcome] of outcomes.entries()) {
      await end(breaker, outcome());
      if (tripped === null && breaker.error) {
        tripped = i + 1;
        first = breaker.error;
      }
    }
    expect(tripped).toBe(tripsAt);
    expect(breaker.error).toBe(first);
    expect(breaker.signal.aborted).toBe(tripsAt !== null);
  });

  it("names the failure that tripped it, not a later one", async () => {
    const breaker = new OutageBreaker({ after: 1, nextStep: NEXT });
    await end(breaker, slow());
    await end(breaker, refused());
    expect(breaker.error?.message).toContain("(E_POLICY_TIMEOUT: no answer within 1 s)");
  });

  it("a next step given as a function is asked once, when it trips", async () => {
    let asked = 0;
    let finished = 0;
    const breaker = new OutageBreaker({
      after: 2,
      nextStep: () => `play again from episode ${finished} (asked ${++asked})`,
    });
    await end(breaker, refused());
    finished = 3;
    expect(asked).toBe(0);
    await end(breaker, refused());
    await end(breaker, refused());
    expect(asked).toBe(1);
    expect(breaker.error?.nextStep).toBe("play again from episode 3 (asked 1)");
  });

  it("counts each named server apart: one's answers do not reset another's count", async () => {
    const breaker = new OutageBreaker({ after: 2, nextStep: NEXT });
    const user = "http://user:8000/v1";
    const ask = (server: string, outcome: () => unknown) =>
      breaker
        .watch(() => {
          const o = outcome();
          return o instanceof Error ? Promise.reject(o) : Promise.resolve(o);
        }, server)
        .catch(() => {});
    await ask("", answer);
    await ask(user, refused);
    await ask("", answer);
    expect(breaker.error).toBeNull();
    await ask(user, refused);
    expect(breaker.error?.code).toBe("E_POLICY_UNAVAILABLE");
    expect(breaker.signal.aborted).toBe(true);
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
