/**
 * @module sandbox/quickjs-worker
 * The program each QuickJS worker thread runs (`new Worker(source, { eval: true })`): it owns
 * QuickJS runtimes, one WebAssembly instance per guest, and answers the host's create/call/dispose
 * messages one at a time. A worker and not the host's thread because QuickJS polls its deadline
 * only between bytecodes: a native operation (a generic array method over `{length: 2 ** 40}`)
 * runs on for minutes, and only terminating the thread stops it.
 */

import type { CallRequest, CreateFields, DisposeRequest, RunnerReply } from "./host.js";
import { ORACLE_STEP_ARG_SOURCE } from "./oracle-turn.js";

/** Host -> worker messages (an array of them may come as one message). */
export type QuickJsRequest =
  | (CreateFields & { id: number; memoryBytes: number })
  | CallRequest
  | DisposeRequest;

/**
 * Worker -> host answers: the glue's tagged reply, or why there is none. `timeout` and `memory`
 * come from an exception that escaped guest code (QuickJS's "interrupted", "out of memory",
 * "stack overflow"); `compile` is a program that did not load; `crash` is a wasm trap or abort
 * (the guest's module is dead); after any of these but `compile` the worker has dropped the guest.
 */
export type QuickJsFail = "timeout" | "memory" | "compile" | "disposed" | "crash" | "other";

/** A worker's answer (see `QuickJsFail`). */
export type QuickJsReply = RunnerReply<QuickJsFail>;

/** What the worker is started with. */
export interface QuickJsWorkerData {
  coreUrl: string;
  variantUrl: string;
  /** QuickJS's compiled WebAssembly.Module: compiled once by the host, shared by every worker. */
  wasmModule: object;
  prelude: string;
  stackBytes: number;
}

/**
 * The worker program (CommonJS, evaluated). Kept in one string so builds need no copy step. Each
 * reply is posted as soon as its call returns, also within a batch of requests.
 */
export const QUICKJS_WORKER_SOURCE = `"use strict";
${ORACLE_STEP_ARG_SOURCE}
const { parentPort, workerData } = require("node:worker_threads");
const PAGE = 65536, BASE_PAGES = 256, MAX_PAGES = 65536;
let loaded = null;
function load() {
  loaded = loaded || (async () => {
    const [core, variantModule] = await Promise.all([import(workerData.coreUrl), import(workerData.variantUrl)]);
    return { core, variant: variantModule.default, wasmModule: workerData.wasmModule };
  })();
  return loaded;
}
const guests = new Map();
function escapedText(vm, error) {
  try {
    const read = (key) => {
      const h = vm.getProp(error, key);
      try { return vm.typeof(h) === "string" ? vm.getString(h) : ""; } finally { h.dispose(); }
    };
    return read("name") + ": " + read("message");
  } catch (e) {
    return "unreadable exception";
  }
}
function kindOf(text) {
  if (text.endsWith(": interrupted")) return "timeout";
  if (/out of memory|stack overflow/.test(text)) return "memory";
  return "other";
}
function free(g) {
  try { if (g.glue) g.glue.dispose(); g.vm.dispose(); g.runtime.dispose(); } catch (e) {}
}
function drop(iid) {
  const g = guests.get(iid);
  if (!g) return;
  guests.delete(iid);
  free(g);
}
async function create(m) {
  const { core, variant, wasmModule } = await load();
  // One budget for making the guest's module, the prelude, the program's top level and the constructor.
  const deadline = Date.now() + m.timeoutMs;
  const maximum = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(m.memoryBytes / PAGE));
  const wasmMemory = new WebAssembly.Memory({ initial: BASE_PAGES, maximum });
  const module = await core.newQuickJSWASMModuleFromVariant(core.newVariant(variant, { wasmModule, wasmMemory }));
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(m.memoryBytes);
  runtime.setMaxStackSize(workerData.stackBytes);
  const vm = runtime.newContext();
  const g = { runtime, vm, glue: null };
  runtime.setInterruptHandler(() => Date.now() > deadline);
  try {
    const prelude = vm.evalCode(workerData.prelude, "spade-prelude.js", { type: "global" });
    if (prelude.error) {
      const text = escapedText(vm, prelude.error);
      prelude.error.dispose();
      free(g);
      return { fail: "other", text: "the sandbox prelude failed: " + text };
    }
    g.glue = prelude.value;
    const top = vm.evalCode(m.source, "environment.js", { type: "global" });
    if (top.error) {
      const text = escapedText(vm, top.error);
      top.error.dispose();
      free(g);
      const kind = kindOf(text);
      return { fail: kind === "other" ? "compile" : kind, text };
    }
    top.value.dispose();
  } catch (e) {
    free(g);
    return { fail: "crash", text: String(e) };
  }
  guests.set(m.iid, g);
  return call(m.iid, "init", null, m.maxChars, Math.max(1, deadline - Date.now()));
}
function call(iid, op, arg, maxChars, timeoutMs) {
  const g = guests.get(iid);
  if (!g) return { fail: "disposed", text: "" };
  const { runtime, vm, glue } = g;
  const deadline = Date.now() + timeoutMs;
  runtime.setInterruptHandler(() => Date.now() > deadline);
  try {
    const args = [vm.newString(op), arg === null ? vm.null : vm.newString(arg), vm.newNumber(maxChars)];
    const result = vm.callFunction(glue, vm.undefined, ...args);
    for (const h of args) h.dispose();
    if (result.error) {
      const text = escapedText(vm, result.error);
      result.error.dispose();
      drop(iid);
      return { fail: kindOf(text), text };
    }
    const reply = vm.typeof(result.value) === "string" ? vm.getString(result.value) : undefined;
    result.value.dispose();
    runtime.removeInterruptHandler();
    return { reply };
  } catch (e) {
    drop(iid);
    return { fail: "crash", text: String(e) };
  }
}
function serveCall(m) {
  const out = call(m.iid, m.op, m.arg, m.maxChars, m.timeoutMs);
  const stepArg = m.thenStepMs === undefined || !("reply" in out) ? null : oracleStepArg(out.reply, m.maxChars);
  if (stepArg !== null) out.step = call(m.iid, "step", stepArg, m.maxChars, m.thenStepMs);
  return out;
}
async function handle(m) {
  if (m.t === "dispose") { drop(m.iid); return null; }
  if (m.t === "create") return create(m);
  if (m.t === "call") return serveCall(m);
  return { fail: "other", text: "unknown request" };
}
function answer(m, out) {
  if (out) { out.id = m.id; parentPort.postMessage(out); }
}
// Calls and disposes are served at once; a create (asynchronous: it may load the library) and
// everything sent after it wait in order on \`queue\` until the chain has drained.
let queue = null, queued = 0;
function enqueue(m) {
  if (queue === null && m.t !== "create") {
    try {
      answer(m, m.t === "call" ? serveCall(m) : m.t === "dispose" ? (drop(m.iid), null) : { fail: "other", text: "unknown request" });
    } catch (e) {
      if (m.id !== undefined) parentPort.postMessage({ id: m.id, fail: "crash", text: String(e) });
    }
    return;
  }
  queued++;
  queue = (queue || Promise.resolve()).then(() => handle(m)).then(
    (out) => answer(m, out),
    (e) => { if (m.id !== undefined) parentPort.postMessage({ id: m.id, fail: "crash", text: String(e) }); },
  ).then(() => { if (--queued === 0) queue = null; });
}
parentPort.on("message", (m) => {
  if (Array.isArray(m)) for (const one of m) enqueue(one);
  else enqueue(m);
});
`;
