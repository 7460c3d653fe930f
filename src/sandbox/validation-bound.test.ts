import { beforeAll, describe, expect, it } from "vitest";
import { checkEnv, type CheckCode } from "../env/index.js";
import type { Action, Env } from "../env/types.js";
import { loadProgram, SANDBOX_BACKENDS, type ProgramEnv, type SandboxLimits } from "./index.js";
import { WATCHDOG_GRACE_MS } from "./ivm-pool.js";
import { QUICKJS_WATCHDOG_GRACE_MS } from "./quickjs-pool.js";
import { makeProgram, TEST_META, type ProgramParts } from "./testing/programs.js";

/** Small deadlines, so that a validation spending all of them stays short. */
const LIMITS: Partial<SandboxLimits> = {
  compileTimeoutMs: 400,
  resetTimeoutMs: 60,
  stepTimeoutMs: 40,
  hintTimeoutMs: 40,
  solveTimeoutMs: 40,
};

/**
 * The deadlines of every call a validation made, summed from the configured limits: loading
 * (the compile and the read of `meta`, each under `compileTimeoutMs`), each method under its own
 * deadline, and a reset that replaced a broken guest under the compile's deadline too.
 */
class DeadlineLedger {
  totalMs = 0;
  calls = 0;
  /** The oracle's turns made through `solveAndStep` (one request each). */
  oracleTurns = 0;

  /** An opener whose environments charge each call's deadline here. */
  opener(source: string, backend: (typeof SANDBOX_BACKENDS)[number]): () => Promise<Env> {
    return async () => {
      this.charge(2 * (LIMITS.compileTimeoutMs as number));
      return this.#wrap(await loadProgram(source, { backend, limits: LIMITS }));
    };
  }

  charge(ms: number): void {
    this.totalMs += ms;
    this.calls++;
  }

  #wrap(env: ProgramEnv): Env {
    const l = env.limits;
    return {
      meta: env.meta,
      reset: async (seed: number) => {
        const before = env.replacements;
        this.charge(l.resetTimeoutMs);
        try {
          return await env.reset(seed);
        } finally {
          if (env.replacements > before) this.charge(l.compileTimeoutMs);
        }
      },
      step: (action: Action) => {
        this.charge(l.stepTimeoutMs);
        return env.step(action);
      },
      hint: () => {
        this.charge(l.hintTimeoutMs);
        return env.hint();
      },
      solve: () => {
        this.charge(l.solveTimeoutMs);
        return env.solve();
      },
      // The oracle's turn in one request: two calls, each under its own deadline.
      solveAndStep: () => {
        this.charge(l.solveTimeoutMs + l.stepTimeoutMs);
        this.oracleTurns++;
        return env.solveAndStep();
      },
      close: () => env.close(),
    };
  }
}

interface Hostile {
  name: string;
  parts: ProgramParts;
  failures: CheckCode[];
  /** The oracle's turns the validation made (each one `solveAndStep` request). */
  oracleTurns: number;
}

/** Programs that spend their deadlines on purpose (issue 15 item 5). */
const HOSTILE: Hostile[] = [
  {
    name: "every method spins forever",
    parts: { reset: "for (;;) {}", step: "for (;;) {}", hint: "for (;;) {}", solve: "for (;;) {}" },
    failures: ["E_RESET", "E_TIMEOUT"],
    oracleTurns: 0,
  },
  {
    name: "the oracle spins forever, maxTurns 200",
    parts: { meta: JSON.stringify({ ...TEST_META, maxTurns: 200 }), solve: "for (;;) {}" },
    failures: ["E_ORACLE", "E_TIMEOUT"],
    oracleTurns: 3,
  },
  {
    name: "steps spin on every action but the oracle's",
    parts: {
      step: 'if (action.answer !== "win") for (;;) {} return { observation: "o", reward: 1, terminated: true, truncated: false, info: {} };',
    },
    failures: ["E_STEP", "E_TIMEOUT"],
    oracleTurns: 0,
  },
  {
    name: "the step spins on the oracle's action only",
    parts: {
      step: 'if (action.answer === "win") for (;;) {} return { observation: "o", reward: 0, terminated: false, truncated: false, info: {} };',
    },
    failures: ["E_STEP", "E_ORACLE", "E_TIMEOUT"],
    oracleTurns: 3,
  },
  {
    name: "hint spins after the first seed",
    parts: { members: "calls = 0;", hint: 'if (this.calls++ > 0) for (;;) {} return "h";' },
    failures: ["E_HINT", "E_TIMEOUT"],
    oracleTurns: 3,
  },
];

describe.each(SANDBOX_BACKENDS)("checkEnv's time on hostile programs: %s", (backend) => {
  // The backend's pool starts once per host process, before any design: not a design's time.
  beforeAll(async () => {
    await (await loadProgram(makeProgram(), { backend })).close();
  });

  it.each(HOSTILE.map((h) => [h.name, h] as const))(
    "%s: no longer than the sum of the deadlines of the calls it made",
    async (_name, hostile) => {
      const ledger = new DeadlineLedger();
      const started = performance.now();
      const report = await checkEnv(ledger.opener(makeProgram(hostile.parts), backend));
      const elapsedMs = performance.now() - started;
      expect(report.failures).toEqual(hostile.failures);
      expect(ledger.calls).toBeGreaterThan(3);
      expect(ledger.oracleTurns).toBe(hostile.oracleTurns);
      expect(elapsedMs).toBeLessThanOrEqual(ledger.totalMs);
    },
  );

  // A native loop runs on until the watchdog ends its runner, its grace past the deadline: it took
  // 6.4 s against 2.3 s of deadlines (three such calls before the limit-error stop).
  it("a native loop the deadline does not cut ends the validation at once", async () => {
    const graceMs = backend === "quickjs" ? QUICKJS_WATCHDOG_GRACE_MS : WATCHDOG_GRACE_MS;
    const ledger = new DeadlineLedger();
    const started = performance.now();
    const source = makeProgram({ step: "Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);" });
    const report = await checkEnv(ledger.opener(source, backend));
    const elapsedMs = performance.now() - started;
    expect(report.failures).toEqual(["E_STEP", "E_TIMEOUT"]);
    expect(report.checks.find((c) => c.code === "E_TIMEOUT")?.message).toBe(
      'probe "empty text": step() ran past its 40 ms deadline (make the method cheaper or raise the limit)',
    );
    expect(elapsedMs).toBeLessThanOrEqual(ledger.totalMs + graceMs);
  });
});
