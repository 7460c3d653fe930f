import { describe, expect, it } from "vitest";
import { codeOfAsync } from "../../test/assert.js";
import { ProgramEnv, resolveLimits } from "./index.js";
import { decodeReply } from "./protocol.js";
import { createQuickJsBackend } from "./quickjs.js";
import { QUICKJS_WATCHDOG_GRACE_MS, QuickJsPool } from "./quickjs-pool.js";
import { LANE_RING_BYTES } from "./shared-lane.js";
import { closedAfterEach, victimAndSibling } from "./testing/backends.js";
import { makeProgram, stepReturning } from "./testing/programs.js";

const NATIVE_SPIN =
  'if (action.answer === "spin") Array.prototype.indexOf.call({ length: 2 ** 40 }, 1); ';
const SOURCE = makeProgram({ step: NATIVE_SPIN + stepReturning('"alive " + (++this.turns)') });
const ACT = { text: "", answer: null, toolCalls: [] };

// Issue 16 item 3: QuickJS ran on the host's thread, where a native loop ignores the deadline.
describe("QuickJS worker threads", () => {
  const track = closedAfterEach();

  it("a guest stuck in native code is ended by the watchdog while the host's event loop runs on", async () => {
    const backend = track(createQuickJsBackend({ workers: 1 }));
    const limits = resolveLimits({ stepTimeoutMs: 200 });
    const { victim, sibling } = await victimAndSibling(backend, SOURCE, limits);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = performance.now();
    const spin = victim.step({ ...ACT, answer: "spin" });
    const queued = sibling.step(ACT);
    expect(await codeOfAsync(spin)).toBe("E_SANDBOX_TIMEOUT");
    const elapsedMs = performance.now() - started;
    clearInterval(timer);
    expect(await codeOfAsync(queued)).toBe("E_SANDBOX_DISPOSED");
    // Not a speed goal: the spin would last minutes; the watchdog ends it after deadline + grace.
    expect(elapsedMs).toBeLessThan(200 + QUICKJS_WATCHDOG_GRACE_MS + 5000);
    expect(ticks).toBeGreaterThanOrEqual(20);
    // Both recover in a fresh worker at their next reset.
    await sibling.reset(2);
    expect((await sibling.step(ACT)).observation).toBe("alive 1");
    expect(sibling.replacements).toBe(1);
    await victim.close();
    await sibling.close();
  });

  it("sends requests and answers larger than the shared ring on the port, in order", async () => {
    const backend = track(createQuickJsBackend({ workers: 1 }));
    // Every quote is two bytes of the create's JSON: the request does not fit in the ring.
    const padding = `// ${'"'.repeat(LANE_RING_BYTES / 2 + 1000)}\n`;
    const big =
      'if (action.answer === "big") return { observation: "o".repeat(300000) + (++this.turns), reward: 0, terminated: false, truncated: false, info: {} }; ';
    const source =
      padding + makeProgram({ step: big + stepReturning('"alive " + (++this.turns)') });
    const limits = resolveLimits({});
    const { victim: first, sibling: second } = await victimAndSibling(backend, source, limits);
    const observations = await Promise.all([
      first.step({ ...ACT, answer: "big" }),
      second.step(ACT),
      first.step(ACT),
      second.step({ ...ACT, answer: "big" }),
    ]).then((results) => results.map((r) => r.observation));
    expect(observations.map((o) => o.length)).toEqual([300001, 7, 7, 300001]);
    expect(observations[0]?.endsWith("o1")).toBe(true);
    expect(observations.slice(1, 3)).toEqual(["alive 1", "alive 2"]);
    expect(observations[3]?.endsWith("o2")).toBe(true);
    await first.close();
    await second.close();
  });

  it("terminates a worker that sleeps on its lane", async () => {
    const pool = new QuickJsPool(1);
    const worker = await pool.acquire();
    await new Promise((resolve) => setTimeout(resolve, 100)); // started, waiting in Atomics.wait
    const started = performance.now();
    pool.close();
    while (!worker.dead && performance.now() - started < 2000)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(worker.dead).toBe(true);
  });

  it("refuses a bad worker count", async () => {
    const backend = createQuickJsBackend({ workers: 0 });
    expect(await codeOfAsync(ProgramEnv.create(backend, SOURCE, resolveLimits()))).toBe("E_CONFIG");
  });

  // Under load QuickJS's "interrupted" can fire inside a native call and reach the glue's catch:
  // the prelude tags an engine-made one "T", which is a timeout, not the guest's own throw.
  it("decodes an interrupt the glue caught as E_SANDBOX_TIMEOUT", () => {
    const decoded = decodeReply("TInternalError: interrupted", "reset", 1000, 500);
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.fatal).toBe(true);
    expect(decoded.error.code).toBe("E_SANDBOX_TIMEOUT");
    expect(decoded.error.message).toBe(
      "reset() ran past its 500 ms deadline (make the method cheaper or raise the limit)",
    );
  });
});
