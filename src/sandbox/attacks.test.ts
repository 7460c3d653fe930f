import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Action } from "../env/types.js";
import type { ErrorCode } from "../errors.js";
import { loadProgram, SANDBOX_BACKENDS, type ProgramEnv, type SandboxBackendName, type SandboxLimits } from "./index.js";
import { makeProgram, stepReturning, type ProgramParts } from "./testing/programs.js";

/** A file every escape attempt tries to create; it must never exist. */
const MARKER = join(tmpdir(), `spade-sandbox-attack-${process.pid}`);
const M = JSON.stringify(MARKER);
const MIB = 1024 * 1024;
/** Small heaps keep memory bombs quick. */
const LIMITS: Partial<SandboxLimits> = { memoryBytes: 16 * MIB, stepTimeoutMs: 150, compileTimeoutMs: 400 };
/** How much the host's resident memory may grow over the whole suite. */
const RSS_GROWTH_BOUND_BYTES = 400 * MIB;
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

const ATTACKS: Attack[] = [
  // Escapes: nothing of the host is reachable.
  { name: "Function constructor to process", at: "step", code: `const p = this.constructor.constructor("return process")(); p.mainModule.require("fs").writeFileSync(${M}, "x");`, outcome: "E_SANDBOX_THROW", expect: /process/ },
  {
    name: "Function constructors reach only the guest's own global",
    at: "step",
    code: stepReturning(
      '[this.constructor.constructor("return globalThis")() === globalThis, Object.getPrototypeOf(function* () {}).constructor("return globalThis")().next().value === globalThis, ["process", "require", "Buffer", "module", "WebAssembly", "SharedArrayBuffer", "Atomics"].filter((k) => k in globalThis).join("+")].join()',
    ),
    outcome: "ok",
    expect: "true,true,",
  },
  { name: "require", at: "step", code: `require("fs").writeFileSync(${M}, "x");`, outcome: "E_SANDBOX_THROW", expect: /require/ },
  { name: "returning dynamic import('fs')", at: "step", code: 'return import("fs");', outcome: "E_ENV_CONTRACT", expect: "step() returned a Promise" },
  // isolated-vm throws an unhandled rejection in place of the answer; QuickJS never settles it.
  { name: "an unhandled rejection", at: "step", code: 'Promise.reject(new Error("late")); ' + stepReturning('"ok"'), outcome: { "isolated-vm": "E_SANDBOX_THROW", quickjs: "ok" } },
  { name: "static import", at: "load", code: 'import fs from "fs";', outcome: "E_SANDBOX_COMPILE" },
  // CPU: every loop ends at the deadline, whatever the guest catches.
  { name: "infinite loop", at: "step", code: LOOP_FOREVER, outcome: "E_SANDBOX_TIMEOUT" },
  { name: "error-swallowing loop", at: "step", code: 'for (;;) { try { throw new Error("x"); } catch (e) {} }', outcome: "E_SANDBOX_TIMEOUT" },
  { name: "try/finally re-entry", at: "step", code: "for (;;) { try { for (;;) {} } finally { continue; } }", outcome: "E_SANDBOX_TIMEOUT" },
  { name: "ReDoS", at: "step", code: '/(a+)+$/.test("a".repeat(40) + "!");', outcome: "E_SANDBOX_TIMEOUT" },
  { name: "recursion that catches its stack overflow", at: "step", code: "const f = (n) => { try { return f(n + 1) + 1; } catch (e) { return f(n + 1); } }; f(0);", outcome: "E_SANDBOX_TIMEOUT" },
  { name: "microtask flood", at: "step", code: "const f = () => { Promise.resolve().then(f); }; f(); " + stepReturning('"ok"'), outcome: { "isolated-vm": "E_SANDBOX_TIMEOUT", quickjs: "ok" } },
  { name: "infinite loop at the top level", at: "load", code: LOOP_FOREVER, outcome: "E_SANDBOX_TIMEOUT" },
  // Stack: an uncaught stack overflow is E_SANDBOX_MEMORY on both backends (documented choice).
  { name: "deep recursion", at: "step", code: "const f = (n) => f(n + 1) + 1; f(0);", outcome: "E_SANDBOX_MEMORY", expect: /Maximum call stack size exceeded|stack overflow/, limits: BOMB },
  // Memory: the guest's heap is capped; the host never pays.
  { name: "array push loop", at: "step", code: 'const a = []; for (;;) a.push({ i: a.length, s: "x" + a.length });', outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "string doubling (engine ropes hit the length cap)", at: "step", code: 'let s = "x"; for (;;) s = s + s;', outcome: "E_SANDBOX_THROW", expect: /Invalid string length|string too long/ },
  { name: "string doubling, flattened", at: "step", code: 'let s = "x"; for (;;) { s = s + s; s.charCodeAt(s.length - 1); }', outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "new Uint8Array(2 ** 31)", at: "step", code: "new Uint8Array(2 ** 31);", outcome: { "isolated-vm": "E_SANDBOX_MEMORY", quickjs: "E_SANDBOX_THROW" }, limits: BOMB },
  { name: "new Uint8Array(2 ** 30)", at: "step", code: "new Uint8Array(2 ** 30);", outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "ArrayBuffer loop", at: "step", code: "const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20));", outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "property growth on one object (aborts V8)", at: "step", code: 'const o = {}; for (let i = 0; ; i++) o["k" + i] = i;', outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "one huge array (aborts V8)", at: "step", code: "new Array(5e7).fill(0);", outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "Map growth", at: "step", code: "const m = new Map(); for (let i = 0; ; i++) m.set(i, [i]);", outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "memory bomb at the top level", at: "load", code: "const keep = []; for (;;) keep.push(new Array(1e5).fill(1.5));", outcome: "E_SANDBOX_MEMORY", limits: BOMB },
  { name: "WebAssembly.Memory growth", at: "step", code: "new WebAssembly.Memory({ initial: 1, maximum: 65536 }).grow(65535);", outcome: "E_SANDBOX_THROW", expect: /WebAssembly/ },
  { name: "WebAssembly, SharedArrayBuffer, Atomics are absent", at: "step", code: stepReturning('[typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics, typeof globalThis["Web" + "Assembly"]].join()'), outcome: "ok", expect: "undefined,undefined,undefined,undefined" },
  { name: "Atomics.wait", at: "step", code: "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);", outcome: "E_SANDBOX_THROW", expect: /Atomics|SharedArrayBuffer/ },
  { name: "setTimeout", at: "step", code: "setTimeout(() => {}, 0);", outcome: "E_SANDBOX_THROW", expect: /setTimeout/ },
  { name: "setInterval", at: "step", code: "setInterval(() => {}, 1);", outcome: "E_SANDBOX_THROW", expect: /setInterval/ },
  // Returned values: only JSON crosses, produced inside the guest under the deadline.
  { name: "a never-resolving promise", at: "step", code: "return new Promise(() => {});", outcome: "E_ENV_CONTRACT", expect: "step() returned a Promise" },
  { name: "an endless getter on the result", at: "step", code: `return { get observation() { ${LOOP_FOREVER} }, reward: 0, terminated: false, truncated: false, info: {} };`, outcome: "E_SANDBOX_TIMEOUT" },
  { name: "an endless toJSON", at: "step", code: `return { toJSON() { ${LOOP_FOREVER} } };`, outcome: "E_SANDBOX_TIMEOUT" },
  { name: "an endless Proxy ownKeys trap", at: "step", code: `return new Proxy({}, { ownKeys() { ${LOOP_FOREVER} } });`, outcome: "E_SANDBOX_TIMEOUT" },
  { name: "an endless Proxy get trap", at: "step", code: `return new Proxy({ observation: "o" }, { get() { ${LOOP_FOREVER} } });`, outcome: "E_SANDBOX_TIMEOUT" },
  { name: "an endless getter on a thrown error", at: "step", code: `throw { get message() { ${LOOP_FOREVER} } };`, outcome: "E_SANDBOX_TIMEOUT" },
  { name: "a huge observation", at: "step", code: stepReturning('"x".repeat(5e6)'), outcome: "E_SANDBOX_OUTPUT_SIZE" },
  { name: "a huge toJSON answer", at: "step", code: 'return { toJSON() { return "y".repeat(3e6); } };', outcome: "E_SANDBOX_OUTPUT_SIZE" },
  { name: "deeply nested info", at: "step", code: 'let info = {}; for (let i = 0; i < 200; i++) info = { a: info }; return { observation: "o", reward: 0, terminated: false, truncated: false, info };', outcome: "E_ENV_CONTRACT", expect: /nested deeper than 64 levels/ },
];

function expectedCode(outcome: Outcome, backend: SandboxBackendName): ErrorCode | "ok" {
  return typeof outcome === "string" ? outcome : outcome[backend];
}

function programFor(attack: Attack): string {
  const parts: ProgramParts = attack.at === "step" ? { step: attack.code } : { topLevel: attack.code };
  const source = makeProgram(parts);
  // A static import must come first to be a static import at all.
  return attack.code.startsWith("import ") ? `${attack.code}\n${makeProgram()}` : source;
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

  it.each(ATTACKS.map((a) => [a.name, a] as const))("%s", async (_name, attack) => {
    const want = expectedCode(attack.outcome, backend);
    const loading = loadProgram(programFor(attack), { backend, limits: { ...LIMITS, ...attack.limits } });
    if (attack.at === "load") {
      const err = (await loading.then(() => undefined, (e: unknown) => e)) as { code?: string; message: string };
      expect(err?.code).toBe(want);
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
    expect((await env.step({ text: "", answer: "check", toolCalls: [] })).observation).toBe(expected);
  });

  it("prototype pollution in the guest does not reach the host", async () => {
    const env = await loadProgram(
      makeProgram({
        step:
          'Object.prototype.polluted = 1; Array.prototype.polluted = 1; Object.prototype.toJSON = undefined; ' +
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
          "Math.floor = () => 0; Math.imul = () => 0; String.prototype.slice = () => \"\";",
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
