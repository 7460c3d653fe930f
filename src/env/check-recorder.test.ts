import { describe, expect, it } from "vitest";
import { SpadeError, WatchdogKill } from "../errors.js";
import { guarded, Recorder, StopChecking } from "./check-recorder.js";

/** A recorder whose clock reads `clock.ms`, with a 100 ms budget started at 0. */
function recorder(maxLimitErrors = 3) {
  const clock = { ms: 0 };
  const rec = new Recorder(maxLimitErrors, { budgetMs: 100, now: () => clock.ms, startedMs: 0 });
  return { rec, clock };
}

describe("Recorder", () => {
  it("keeps a code's first failure, counts the rest, and reports in check order", () => {
    const { rec } = recorder();
    rec.pass("E_TRIVIAL", "no trivial policy wins");
    rec.fail("E_STEP", "turn 1: bad reward");
    rec.fail("E_STEP", "turn 2: bad reward");
    rec.pass("E_STEP", "probes pass");
    rec.pass("E_COMPILE", "compiles");
    expect(rec.report(null)).toEqual({
      ok: false,
      failures: ["E_STEP"],
      checks: [
        { code: "E_COMPILE", ok: true, message: "compiles" },
        { code: "E_STEP", ok: false, message: "turn 1: bad reward (and 1 more)" },
        { code: "E_TRIVIAL", ok: true, message: "no trivial policy wins" },
      ],
      meta: null,
    });
  });

  it("codes a sandbox limit under its limit and its method, and stops at the limit count", () => {
    const { rec } = recorder(2);
    const timeout = new SpadeError("E_SANDBOX_TIMEOUT", "reset ran past 50 ms");
    rec.error(timeout, "reset", "reset(0)");
    expect(rec.report(null).failures).toEqual(["E_RESET", "E_TIMEOUT"]);
    expect(() => rec.error(timeout, "solve", "solve() on seed 1")).toThrow(StopChecking);
    expect(rec.report(null).checks).toEqual([
      { code: "E_RESET", ok: false, message: "reset(0): reset ran past 50 ms" },
      { code: "E_ORACLE", ok: false, message: "solve() on seed 1: reset ran past 50 ms" },
      { code: "E_TIMEOUT", ok: false, message: "reset(0): reset ran past 50 ms (and 1 more)" },
    ]);
  });

  it("stops at the first call the sandbox's watchdog had to end", () => {
    const { rec } = recorder(3);
    const killed = new SpadeError("E_SANDBOX_TIMEOUT", "step() ran past its 40 ms deadline", {
      cause: new WatchdogKill(2000),
    });
    expect(() => rec.error(killed, "step", "probe 1")).toThrow(StopChecking);
    expect(rec.report(null).failures).toEqual(["E_STEP", "E_TIMEOUT"]);
    expect(rec.limitErrors).toBe(1);
  });

  it("reads a contract error while opening as bad meta, an unknown method's as E_STEP", () => {
    const { rec } = recorder();
    rec.error(new SpadeError("E_ENV_CONTRACT", "meta.maxTurns is 0"), "open", "loading");
    rec.error(new Error("boom"), "render", "rendering");
    expect(rec.report(null).checks).toEqual([
      { code: "E_META", ok: false, message: "loading: meta.maxTurns is 0" },
      { code: "E_STEP", ok: false, message: "rendering: boom" },
    ]);
  });
});

describe("guarded", () => {
  it("returns the call's value, or undefined with the error recorded", async () => {
    const { rec } = recorder();
    expect(await guarded(rec, "hint", "hint()", async () => "look left")).toBe("look left");
    expect(
      await guarded(rec, "hint", "hint()", async () => {
        throw new Error("no hint");
      }),
    ).toBeUndefined();
    expect(rec.report(null).failures).toEqual(["E_HINT"]);
  });

  it("stops with E_TIME_BUDGET before a call once the budget is spent, without calling it", async () => {
    const { rec, clock } = recorder();
    clock.ms = 100;
    let called = false;
    await expect(
      guarded(rec, "step", "turn 3", async () => {
        called = true;
      }),
    ).rejects.toBeInstanceOf(StopChecking);
    expect(called).toBe(false);
    expect(rec.report(null).checks).toEqual([
      {
        code: "E_TIME_BUDGET",
        ok: false,
        message:
          "the validation used its 100 ms budget (100 ms) before turn 3; the checks after it did not run",
      },
    ]);
  });
});
