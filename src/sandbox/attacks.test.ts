import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkEnv, type CheckCode } from "../env/index.js";
import type { Action } from "../env/types.js";
import type { ErrorCode } from "../errors.js";
import {
  createIsolatedVmBackend,
  createQuickJsBackend,
  loadProgram,
  ProgramEnv,
  resolveLimits,
  SANDBOX_BACKENDS,
  type SandboxBackendName,
  type SandboxLimits,
} from "./index.js";
import { makeProgram, stepReturning, TEST_META, type ProgramParts } from "./testing/programs.js";
import { codeOfAsync } from "../../test/assert.js";

/** A file every escape attempt tries to create; it must never exist. */
const MARKER = join(tmpdir(), `spade-sandbox-attack-${process.pid}`);
const M = JSON.stringify(MARKER);
const MIB = 1024 * 1024;
/** Small heaps keep memory bombs quick. */
const LIMITS: Partial<SandboxLimits> = {
  memoryBytes: 16 * MIB,
  stepTimeoutMs: 150,
  compileTimeoutMs: 400,
};
/** How much the host's resident memory may grow over the whole suite. */
const RSS_GROWTH_BOUND_BYTES = 400 * MIB;
/** How much one program may raise the host's peak resident memory (maxRSS). */
const PEAK_RSS_BOUND_BYTES = 256 * MIB;

/** The host's resident memory now and its peak so far, in bytes. */
function rssNow(): { rss: number; peak: number } {
  return { rss: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024 };
}

/** Host RSS per program, printed after each suite (the evidence issue 16 asks for). */
const rssRows: string[] = [];
function recordPeak(label: string, before: { rss: number; peak: number }): void {
  const after = rssNow();
  const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`.padStart(10);
  rssRows.push(
    `${label.padEnd(84)} rss ${mib(after.rss)} (${mib(after.rss - before.rss)} ) peak +${mib(after.peak - before.peak)}`,
  );
  expect(after.rss - before.rss, `${label} grew the host's RSS`).toBeLessThan(PEAK_RSS_BOUND_BYTES);
  expect(after.peak - before.peak, `${label} raised the host's peak RSS`).toBeLessThan(
    PEAK_RSS_BOUND_BYTES,
  );
}
afterAll(() => {
  process.stdout.write(
    `host RSS after each attack program (change over the program; peak growth; bound ${PEAK_RSS_BOUND_BYTES / MIB} MiB each):\n${rssRows.join("\n")}\n`,
  );
});

// The host runs in another time zone and locale: none of it may show inside a guest.
const hostTz = { TZ: process.env.TZ, LANG: process.env.LANG };
beforeAll(() => {
  process.env.TZ = "America/New_York";
  process.env.LANG = "de_DE.UTF-8";
});
afterAll(() => {
  for (const [key, value] of Object.entries(hostTz)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});
const ACTION: Action = { text: "go", answer: null, toolCalls: [] };

/** What an attack must end in: an exact code (per backend where they differ) or a normal answer. */
type Outcome = ErrorCode | "ok" | Record<SandboxBackendName, ErrorCode | "ok">;
interface Attack {
  name: string;
  /** Where the attack runs: in step() or in the program's top level. */
  at: "step" | "load";
  code: string;
  outcome: Outcome;
  /** For "ok": the observation step() must return. For errors: a pattern the message matches. */
  expect?: string | RegExp;
  /** Limits over LIMITS (memory bombs get a long deadline so that memory, not time, runs out). */
  limits?: Partial<SandboxLimits>;
}

const BOMB: Partial<SandboxLimits> = { stepTimeoutMs: 5000, compileTimeoutMs: 5000 };

const LOOP_FOREVER = "for (;;) {}";

/**
 * A step that queues promise jobs (`jobs`) and answers "ok": isolated-vm runs the jobs and ends in
 * `onIsolatedVm`; QuickJS never runs pending jobs, so its step answers normally.
 */
function quickJsRunsNoJobs(name: string, jobs: string, onIsolatedVm: ErrorCode): Attack {
  return {
    name,
    at: "step",
    code: jobs + stepReturning('"ok"'),
    outcome: { "isolated-vm": onIsolatedVm, quickjs: "ok" },
  };
}

const ATTACKS: Attack[] = [
  // Escapes: nothing of the host is reachable.
  {
    name: "Function constructor to process",
    at: "step",
    code: `const p = this.constructor.constructor("return process")(); p.mainModule.require("fs").writeFileSync(${M}, "x");`,
    outcome: "E_SANDBOX_THROW",
    expect: /process/,
  },
  {
    name: "Function constructors reach only the guest's own global",
    at: "step",
    code: stepReturning(
      '[this.constructor.constructor("return globalThis")() === globalThis, Object.getPrototypeOf(function* () {}).constructor("return globalThis")().next().value === globalThis, ["process", "require", "Buffer", "module", "WebAssembly", "SharedArrayBuffer", "Atomics"].filter((k) => k in globalThis).join("+")].join()',
    ),
    outcome: "ok",
    expect: "true,true,",
  },
  {
    name: "require",
    at: "step",
    code: `require("fs").writeFileSync(${M}, "x");`,
    outcome: "E_SANDBOX_THROW",
    expect: /require/,
  },
  {
    name: "returning dynamic import('fs')",
    at: "step",
    code: 'return import("fs");',
    outcome: "E_ENV_CONTRACT",
    expect: "step() returned a Promise",
  },
  // isolated-vm throws an unhandled rejection in place of the answer; QuickJS never settles it.
  quickJsRunsNoJobs(
    "an unhandled rejection",
    'Promise.reject(new Error("late")); ',
    "E_SANDBOX_THROW",
  ),
  { name: "static import", at: "load", code: 'import fs from "fs";', outcome: "E_SANDBOX_COMPILE" },
  // CPU: every loop ends at the deadline, whatever the guest catches.
  { name: "infinite loop", at: "step", code: LOOP_FOREVER, outcome: "E_SANDBOX_TIMEOUT" },
  {
    name: "error-swallowing loop",
    at: "step",
    code: 'for (;;) { try { throw new Error("x"); } catch (e) {} }',
    outcome: "E_SANDBOX_TIMEOUT",
  },
  {
    name: "try/finally re-entry",
    at: "step",
    code: "for (;;) { try { for (;;) {} } finally { continue; } }",
    outcome: "E_SANDBOX_TIMEOUT",
  },
  {
    name: "ReDoS",
    at: "step",
    code: '/(a+)+$/.test("a".repeat(40) + "!");',
    outcome: "E_SANDBOX_TIMEOUT",
  },
  {
    name: "recursion that catches its stack overflow",
    at: "step",
    code: "const f = (n) => { try { return f(n + 1) + 1; } catch (e) { return f(n + 1); } }; f(0);",
    outcome: "E_SANDBOX_TIMEOUT",
  },
  // Native loops no interpreter deadline sees: QuickJS held the host's thread for minutes.
  {
    name: "indexOf over an array-like of length 2 ** 40",
    at: "step",
    code: "Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);",
    outcome: "E_SANDBOX_TIMEOUT",
  },
  {
    name: "join over an array-like of length 2 ** 30",
    at: "step",
    code: "Array.prototype.join.call({ length: 2 ** 30 });",
    outcome: "E_SANDBOX_TIMEOUT",
  },
  quickJsRunsNoJobs(
    "microtask flood",
    "const f = () => { Promise.resolve().then(f); }; f(); ",
    "E_SANDBOX_TIMEOUT",
  ),
  {
    name: "infinite loop at the top level",
    at: "load",
    code: LOOP_FOREVER,
    outcome: "E_SANDBOX_TIMEOUT",
  },
  // Stack: an uncaught stack overflow is E_SANDBOX_MEMORY on both backends (documented choice).
  {
    name: "deep recursion",
    at: "step",
    code: "const f = (n) => f(n + 1) + 1; f(0);",
    outcome: "E_SANDBOX_MEMORY",
    expect: /Maximum call stack size exceeded|stack overflow/,
    limits: BOMB,
  },
  // Memory: the guest's heap is capped; the host never pays.
  {
    name: "array push loop",
    at: "step",
    code: 'const a = []; for (;;) a.push({ i: a.length, s: "x" + a.length });',
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "string doubling (engine ropes hit the length cap)",
    at: "step",
    code: 'let s = "x"; for (;;) s = s + s;',
    outcome: "E_SANDBOX_THROW",
    expect: /Invalid string length|string too long/,
  },
  {
    name: "string doubling, flattened",
    at: "step",
    code: 'let s = "x"; for (;;) { s = s + s; s.charCodeAt(s.length - 1); }',
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "new Uint8Array(2 ** 31)",
    at: "step",
    code: "new Uint8Array(2 ** 31);",
    outcome: { "isolated-vm": "E_SANDBOX_MEMORY", quickjs: "E_SANDBOX_THROW" },
    limits: BOMB,
  },
  {
    name: "new Uint8Array(2 ** 30)",
    at: "step",
    code: "new Uint8Array(2 ** 30);",
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "ArrayBuffer loop",
    at: "step",
    code: "const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20));",
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "property growth on one object (aborts V8)",
    at: "step",
    code: 'const o = {}; for (let i = 0; ; i++) o["k" + i] = i;',
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "one huge array (aborts V8)",
    at: "step",
    code: "new Array(5e7).fill(0);",
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "Map growth",
    at: "step",
    code: "const m = new Map(); for (let i = 0; ; i++) m.set(i, [i]);",
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "memory bomb at the top level",
    at: "load",
    code: "const keep = []; for (;;) keep.push(new Array(1e5).fill(1.5));",
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  {
    name: "WebAssembly.Memory growth",
    at: "step",
    code: "new WebAssembly.Memory({ initial: 1, maximum: 65536 }).grow(65535);",
    outcome: "E_SANDBOX_THROW",
    expect: /WebAssembly/,
  },
  {
    name: "WebAssembly, SharedArrayBuffer, Atomics are absent",
    at: "step",
    code: stepReturning(
      '[typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics, typeof globalThis["Web" + "Assembly"]].join()',
    ),
    outcome: "ok",
    expect: "undefined,undefined,undefined,undefined",
  },
  {
    name: "Atomics.wait",
    at: "step",
    code: "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);",
    outcome: "E_SANDBOX_THROW",
    expect: /Atomics|SharedArrayBuffer/,
  },
  {
    name: "setTimeout",
    at: "step",
    code: "setTimeout(() => {}, 0);",
    outcome: "E_SANDBOX_THROW",
    expect: /setTimeout/,
  },
  {
    name: "setInterval",
    at: "step",
    code: "setInterval(() => {}, 1);",
    outcome: "E_SANDBOX_THROW",
    expect: /setInterval/,
  },
  // Returned values: only JSON crosses, produced inside the guest under the deadline.
  {
    name: "a never-resolving promise",
    at: "step",
    code: "return new Promise(() => {});",
    outcome: "E_ENV_CONTRACT",
    expect: "step() returned a Promise",
  },
  {
    name: "an endless getter on the result",
    at: "step",
    code: `return { get observation() { ${LOOP_FOREVER} }, reward: 0, terminated: false, truncated: false, info: {} };`,
    outcome: "E_SANDBOX_TIMEOUT",
  },
  {
    name: "an endless toJSON",
    at: "step",
    code: `return { toJSON() { ${LOOP_FOREVER} } };`,
    outcome: "E_SANDBOX_TIMEOUT",
  },
  // Proxy is gone (issue 16 item 3): QuickJS answered a 400k-key ownKeys trap in native code for 29 s.
  {
    name: "an endless Proxy ownKeys trap",
    at: "step",
    code: `return new Proxy({}, { ownKeys() { ${LOOP_FOREVER} } });`,
    outcome: "E_SANDBOX_THROW",
    expect: /Proxy/,
  },
  {
    name: "a Proxy with 400k keys in the answer",
    at: "step",
    code: 'const keys = []; for (let i = 0; i < 4e5; i++) keys.push("k" + i); return new Proxy({}, { ownKeys: () => keys });',
    outcome: "E_SANDBOX_THROW",
    expect: /Proxy/,
    limits: BOMB,
  },
  {
    name: "Proxy reached another way",
    at: "step",
    code: stepReturning(
      '[typeof globalThis["Pro" + "xy"], typeof Reflect.construct, "Proxy" in globalThis].join()',
    ),
    outcome: "ok",
    expect: "undefined,function,false",
  },
  {
    name: "an endless getter on a thrown error",
    at: "step",
    code: `throw { get message() { ${LOOP_FOREVER} } };`,
    outcome: "E_SANDBOX_TIMEOUT",
  },
  {
    name: "a huge observation",
    at: "step",
    code: stepReturning('"x".repeat(5e6)'),
    outcome: "E_SANDBOX_OUTPUT_SIZE",
    limits: BOMB,
  },
  {
    name: "a huge toJSON answer",
    at: "step",
    code: 'return { toJSON() { return "y".repeat(3e6); } };',
    outcome: "E_SANDBOX_OUTPUT_SIZE",
  },
  // Resizable ArrayBuffers (issue 16 item 2): resize() committed memory the isolate's cap never saw.
  {
    name: "resizable ArrayBuffer held across steps",
    at: "step",
    code: "const b = new ArrayBuffer(0, { maxByteLength: 96 << 20 }); b.resize(96 << 20); (globalThis.keep ??= []).push(b);",
    outcome: "E_SANDBOX_THROW",
    expect: /resizable ArrayBuffers/,
    limits: BOMB,
  },
  {
    name: "resizable ArrayBuffer through a subclass",
    at: "step",
    code: "class B extends ArrayBuffer { constructor() { super(8, { maxByteLength: 1 << 30 }); } } new B();",
    outcome: "E_SANDBOX_THROW",
    expect: /resizable ArrayBuffers/,
  },
  {
    name: "resizable ArrayBuffer through a typed array's buffer constructor",
    at: "step",
    code: "const AB = new Uint8Array(1).buffer.constructor; new AB(8, { maxByteLength: 1 << 30 });",
    outcome: "E_SANDBOX_THROW",
    expect: /resizable ArrayBuffers/,
  },
  {
    name: "maxByteLength behind a getter that lies the second time",
    at: "step",
    code:
      "let n = 0; const b = new ArrayBuffer(8, { get maxByteLength() { return n++ === 0 ? undefined : 1 << 30; } }); " +
      stepReturning(
        "[b.resizable, b.byteLength, typeof b.resize, typeof ArrayBuffer.prototype.transfer, new Uint8Array(4).buffer.constructor === ArrayBuffer, new ArrayBuffer(4).slice(1) instanceof ArrayBuffer].join()",
      ),
    outcome: "ok",
    expect: "false,8,undefined,undefined,true,true",
  },
  // Only the engine's own errors are memory failures (issue 16 item 6).
  {
    name: "a thrown object posing as a stack overflow",
    at: "step",
    code: 'throw { name: "RangeError", message: "Maximum call stack size exceeded" };',
    outcome: "E_SANDBOX_THROW",
    expect: /Maximum call stack size exceeded/,
  },
  {
    name: "a RangeError the guest made with the stack-overflow message",
    at: "step",
    code: 'throw new RangeError("Maximum call stack size exceeded");',
    outcome: "E_SANDBOX_THROW",
  },
  {
    name: "a subclassed RangeError saying out of memory",
    at: "step",
    code: 'class E extends RangeError {} throw new E("out of memory");',
    outcome: "E_SANDBOX_THROW",
  },
  {
    name: "an object with RangeError's prototype and a forged tag",
    at: "step",
    code: 'throw Object.create(RangeError.prototype, { message: { value: "stack overflow" }, [Symbol.toStringTag]: { value: "Error" } });',
    outcome: "E_SANDBOX_THROW",
  },
  {
    name: "a forged QuickJS interrupt",
    at: "step",
    code: 'throw typeof InternalError === "function" ? new InternalError("interrupted") : new Error("interrupted");',
    outcome: "E_SANDBOX_THROW",
    expect: /interrupted/,
  },
  {
    name: "a real stack overflow, caught and rethrown",
    at: "step",
    code: "const f = (n) => f(n + 1) + 1; try { f(0); } catch (e) { throw e; }",
    outcome: "E_SANDBOX_MEMORY",
    limits: BOMB,
  },
  // The host's time zone and locale stay out (issue 16 item 6); run with TZ/LANG set by the suite.
  {
    name: "the host's time zone and locale are not visible",
    at: "step",
    code: stepReturning(
      '[new Date(0).toTimeString(), new Date(0).toDateString(), new Date("2024-03-10T12:00:00").getTime(), Date.parse("2024-03-10 12:00"), typeof Intl === "object" ? Intl.DateTimeFormat().resolvedOptions().timeZone + " " + Intl.DateTimeFormat().resolvedOptions().locale : "UTC en-US"].join("|")',
    ),
    outcome: "ok",
    expect:
      "00:00:00 GMT+0000 (Coordinated Universal Time)|Thu Jan 01 1970|1710072000000|1710072000000|UTC en-US",
  },
  {
    // V8's Intl formatted the real clock when given no date (QuickJS has no Intl).
    name: "Intl.DateTimeFormat without a date shows the fixed clock",
    at: "step",
    code: stepReturning(
      'typeof Intl === "object" ? [new Intl.DateTimeFormat("en-US", { dateStyle: "full", timeStyle: "long", timeZone: "UTC" }).format(), Intl.DateTimeFormat("en-US").formatToParts().map((p) => p.value).join("")].join("|") : "Monday, January 1, 2024 at 12:00:00 AM UTC|1/1/2024"',
    ),
    outcome: "ok",
    expect: "Monday, January 1, 2024 at 12:00:00 AM UTC|1/1/2024",
  },
  {
    // QuickJS's Annex B getYear/setYear used the host's zone: setYear(99) differed by 5 h in New York.
    name: "getYear and setYear read UTC",
    at: "step",
    code: stepReturning(
      '[new Date(Date.UTC(1999, 11, 31, 23)).getYear(), new Date(0).setYear(99), new Date(Date.UTC(1905, 6, 20, 3)).setYear(5.5), new Date(NaN).setYear(70), new Date(0).setYear("x")].join("|")',
    ),
    outcome: "ok",
    expect: "99|915148800000|-2033931600000|0|NaN",
  },
  {
    name: "deeply nested info",
    at: "step",
    code: 'let info = {}; for (let i = 0; i < 200; i++) info = { a: info }; return { observation: "o", reward: 0, terminated: false, truncated: false, info };',
    outcome: "E_ENV_CONTRACT",
    expect: /nested deeper than 64 levels/,
  },
];

function expectedCode(outcome: Outcome, backend: SandboxBackendName): ErrorCode | "ok" {
  return typeof outcome === "string" ? outcome : outcome[backend];
}

function programFor(attack: Attack): string {
  const parts: ProgramParts =
    attack.at === "step" ? { step: attack.code } : { topLevel: attack.code };
  const source = makeProgram(parts);
  // A static import must come first to be a static import at all.
  return attack.code.startsWith("import ") ? `${attack.code}\n${makeProgram()}` : source;
}

async function runAttack(
  attack: Attack,
  backend: SandboxBackendName,
  opened: ProgramEnv[],
): Promise<void> {
  const want = expectedCode(attack.outcome, backend);
  const loading = loadProgram(programFor(attack), {
    backend,
    limits: { ...LIMITS, ...attack.limits },
  });
  if (attack.at === "load") {
    expect(await codeOfAsync(loading)).toBe(want);
    return;
  }
  const env = await loading;
  opened.push(env);
  await env.reset(1);
  const outcome = await env.step(ACTION).then(
    (result) => ({ code: "ok", message: result.observation }),
    (e: { code?: string; message: string }) => ({ code: e.code, message: e.message }),
  );
  expect(outcome.code, outcome.message).toBe(want);
  if (typeof attack.expect === "string") expect(outcome.message).toContain(attack.expect);
  else if (attack.expect) expect(outcome.message).toMatch(attack.expect);
  // The environment stays usable after any of these: a fresh guest at the next reset.
  expect((await env.reset(2)).observation).toMatch(/^seed 2 random /);
}

describe.each(SANDBOX_BACKENDS)("sandbox attacks: %s", (backend) => {
  let rssBefore = 0;
  const opened: ProgramEnv[] = [];
  beforeAll(() => {
    rssBefore = process.memoryUsage().rss;
  });

  afterEach(async () => {
    for (const env of opened.splice(0)) await env.close();
    // The host is healthy: a normal environment still works, nothing leaked into the host.
    const env = await loadProgram(makeProgram(), { backend });
    expect((await env.reset(3)).observation).toMatch(/^seed 3 random 0\.\d+$/);
    expect((await env.step({ text: "", answer: "win", toolCalls: [] })).reward).toBe(1);
    await env.close();
    expect(existsSync(MARKER)).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBe(undefined);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(RSS_GROWTH_BOUND_BYTES);
  });

  afterAll(() => {
    expect(existsSync(MARKER)).toBe(false);
  });

  it.each(ATTACKS.map((a) => [a.name, a] as const))("%s", async (name, attack) => {
    const peakBefore = rssNow();
    try {
      await runAttack(attack, backend, opened);
    } finally {
      recordPeak(`${backend}: ${name}`, peakBefore);
    }
  });
  it("a program loaded behind a hostile one on the same runner still loads", async () => {
    // The hostile top level runs on until the watchdog ends the runner; the good program's create
    // was queued there and failed E_SANDBOX_DISPOSED (its validation E_COMPILE) before.
    const oneRunner =
      backend === "quickjs"
        ? createQuickJsBackend({ workers: 1 })
        : createIsolatedVmBackend({ processes: 1 });
    try {
      const limits = resolveLimits(LIMITS);
      const hostile = ProgramEnv.create(
        oneRunner,
        makeProgram({ topLevel: "Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);" }),
        limits,
      );
      const good = ProgramEnv.create(oneRunner, makeProgram(), limits);
      expect(
        await hostile.then(
          () => "loaded",
          (e: { code?: string }) => e.code,
        ),
      ).toBe("E_SANDBOX_TIMEOUT");
      const env = await good;
      opened.push(env);
      expect((await env.reset(3)).observation).toMatch(/^seed 3 random 0\.\d+$/);
    } finally {
      oneRunner.close();
    }
  });

  it("dynamic import() never loads a module", async () => {
    const env = await loadProgram(
      makeProgram({
        step:
          'if (action.answer === "check") ' +
          stepReturning("globalThis.importOutcome") +
          ` globalThis.importOutcome = "pending"; import("fs").then((fs) => { globalThis.importOutcome = "loaded"; fs.writeFileSync(${M}, "x"); }, (e) => { globalThis.importOutcome = "rejected: " + e; }); ` +
          stepReturning('"started"'),
      }),
      { backend },
    );
    opened.push(env);
    await env.reset(1);
    expect((await env.step(ACTION)).observation).toBe("started");
    // isolated-vm runs microtasks after each call and has no module loader; QuickJS never runs jobs.
    const expected = backend === "isolated-vm" ? "rejected: Error: Not supported" : "pending";
    expect((await env.step({ text: "", answer: "check", toolCalls: [] })).observation).toBe(
      expected,
    );
  });

  it("prototype pollution in the guest does not reach the host", async () => {
    const env = await loadProgram(
      makeProgram({
        step:
          "Object.prototype.polluted = 1; Array.prototype.polluted = 1; Object.prototype.toJSON = undefined; " +
          'return { observation: "o", reward: 0, terminated: false, truncated: false, info: JSON.parse(\'{"__proto__": {"polluted": 1}, "a": 1}\') };',
      }),
      { backend },
    );
    opened.push(env);
    await env.reset(1);
    const result = await env.step(ACTION);
    expect(Object.keys(result.info)).toEqual(["__proto__", "a"]);
    expect((result.info as Record<string, unknown>).polluted).toBe(undefined);
    expect(Object.getPrototypeOf(result.info)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBe(undefined);
    expect(([] as unknown as Record<string, unknown>).polluted).toBe(undefined);
  });

  it("replacing globals the glue uses changes nothing the host sees", async () => {
    const clean = await loadProgram(makeProgram(), { backend });
    opened.push(clean);
    const tampered = await loadProgram(
      makeProgram({
        topLevel: [
          'JSON.parse = () => ({ answer: "lose" });',
          'JSON.stringify = () => "{\\"observation\\": \\"pwned\\"}";',
          "Reflect.apply = () => null; Reflect.construct = () => null;",
          'Math.floor = () => 0; Math.imul = () => 0; String.prototype.slice = () => "";',
          "Object.defineProperty = () => { throw new Error('no'); };",
          'globalThis.glue = () => "Rpwned"; globalThis.String = () => "pwned"; Promise.prototype.then = null;',
        ].join("\n"),
        step: 'const win = action.answer === "win"; return { observation: "answer " + action.answer, reward: win ? 1 : 0, terminated: win, truncated: false, info: {} };',
      }),
      { backend },
    );
    opened.push(tampered);
    expect(await tampered.reset(7)).toEqual(await clean.reset(7));
    expect(await tampered.step({ text: "", answer: "win", toolCalls: [] })).toEqual({
      observation: "answer win",
      reward: 1,
      terminated: true,
      truncated: false,
      info: {},
    });
  });
});

/** A meta whose one tool takes `parameters`. */
function toolMeta(parameters: unknown, description = "d"): string {
  const tool = { type: "function", function: { name: "f", description, parameters } };
  return JSON.stringify({ ...TEST_META, tools: [tool] });
}

/** `levels` nested arrays of `minItems` items each. */
function nestedArrays(levels: number, minItems: number): unknown {
  let schema: unknown = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "array", minItems, items: schema };
  return schema;
}

interface ValidatorAttack {
  name: string;
  parts: ProgramParts | ((backend: SandboxBackendName) => ProgramParts);
  /** The report's failures, exactly. */
  failures: CheckCode[];
  /** A pattern the first failure's message matches. */
  expect: RegExp;
  budgetMs?: number;
}

/** Programs aimed at the validator's host-side work (issue 16 items 1 and 4). */
const VALIDATOR_ATTACKS: ValidatorAttack[] = [
  {
    name: "a tool schema with minItems 1e8",
    parts: {
      meta: toolMeta({
        type: "object",
        properties: { a: { type: "array", minItems: 1e8 } },
        required: ["a"],
      }),
    },
    failures: ["E_META"],
    expect: /minItems 100000000/,
  },
  {
    name: "a tool schema with minItems 40, six levels deep",
    parts: {
      meta: toolMeta({ type: "object", properties: { a: nestedArrays(6, 40) }, required: ["a"] }),
    },
    failures: ["E_META"],
    expect: /would exceed 65536 bytes of JSON/,
  },
  {
    name: "a tool schema with minLength 4e8",
    parts: {
      meta: toolMeta({
        type: "object",
        properties: { s: { type: "string", minLength: 4e8 } },
        required: ["s"],
      }),
    },
    failures: ["E_META"],
    expect: /minLength 400000000/,
  },
  {
    name: "a tool schema repeating a large const",
    parts: {
      meta: toolMeta({
        type: "object",
        properties: { a: { type: "array", minItems: 500, items: { const: "c".repeat(2000) } } },
        required: ["a"],
      }),
    },
    failures: ["E_META"],
    expect: /\(const\)/,
  },
  {
    name: "a meta of 300 KB",
    parts: {
      meta: `(() => { const m = ${toolMeta({ type: "object", properties: {} })}; m.tools[0].function.description = "d".repeat(300000); return m; })()`,
    },
    failures: ["E_META"],
    expect: /Environment.meta is 300\d{3} bytes of JSON, over the 65536-byte limit/,
  },
  {
    // Each step spins a few ms (QuickJS interprets ~30x slower than V8's JIT); the validation's
    // trivial policies alone would play 3,000 such steps.
    name: "every call just under its deadline, maxTurns 200",
    parts: (backend) => ({
      meta: JSON.stringify({ ...TEST_META, maxTurns: 200 }),
      step: `let n = 0; while (n < ${backend === "quickjs" ? 1e5 : 2e6}) n++; const win = action.answer === "win"; return { observation: "o" + n, reward: win ? 1 : 0, terminated: win, truncated: false, info: {} };`,
    }),
    failures: ["E_TIME_BUDGET"],
    expect: /the validation used its 1500 ms budget/,
    budgetMs: 1500,
  },
];

describe.each(SANDBOX_BACKENDS)("validator attacks: %s", (backend) => {
  it.each(VALIDATOR_ATTACKS.map((a) => [a.name, a] as const))("%s", async (name, attack) => {
    const peakBefore = rssNow();
    try {
      const source = makeProgram(
        typeof attack.parts === "function" ? attack.parts(backend) : attack.parts,
      );
      const report = await checkEnv(() => loadProgram(source, { backend }), {
        budgetMs: attack.budgetMs,
      });
      expect(report.failures).toEqual(attack.failures);
      expect(report.checks.find((c) => !c.ok)?.message).toMatch(attack.expect);
    } finally {
      recordPeak(`${backend}: validator: ${name}`, peakBefore);
    }
  });
});
