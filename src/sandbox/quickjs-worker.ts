/**
 * @module sandbox/quickjs-worker
 * The program each QuickJS worker thread runs (`new Worker(source, { eval: true })`): it owns
 * QuickJS runtimes, one WebAssembly instance per guest, and answers the host's create/call/dispose
 * messages one at a time. A worker and not the host's thread because QuickJS polls its deadline
 * only between bytecodes: a native operation (a generic array method over `{length: 2 ** 40}`)
 * runs on for minutes, and only terminating the thread stops it.
 */

import type { MessagePort } from "node:worker_threads";
import type { CallRequest, CreateFields, DisposeRequest, RunnerReply } from "./host.js";
import { ORACLE_STEP_ARG_SOURCE } from "./oracle-turn.js";
import {
  CHANNEL_HEADER_BYTES,
  LANE_RING_BYTES,
  SharedLane,
  TO_HOST,
  TO_WORKER,
} from "./shared-lane.js";

/** Host -> worker messages, one record each on the shared lane. */
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

/** What one worker gets besides `QuickJsWorkerData`: its end of the channel (shared-lane.ts). */
export interface QuickJsChannelData {
  /** The channel's two lanes (`newChannelBuffer`). */
  channel: SharedArrayBuffer;
  /** The port for records a ring has no room for (transferred). */
  port: MessagePort;
  /** How long a worker that served one request spins on its lane before `Atomics.wait` (µs). */
  spinMicros: number;
}

/**
 * The worker program (CommonJS, evaluated). Kept in one string so builds need no copy step. It
 * takes requests from its shared lane, blocking in \`Atomics.wait\` while there are none, and
 * writes each reply to the other lane as soon as its call returns, also within a batch of requests.
 */
export const QUICKJS_WORKER_SOURCE = `"use strict";
${ORACLE_STEP_ARG_SOURCE}
${SharedLane.toString()}
const { workerData, receiveMessageOnPort } = require("node:worker_threads");
const port = workerData.port;
const inbox = new SharedLane(workerData.channel, ${TO_WORKER}, ${CHANNEL_HEADER_BYTES}, ${LANE_RING_BYTES}, () => {}, () => {
  const m = receiveMessageOnPort(port);
  return m === undefined ? undefined : m.message;
});
const outbox = new SharedLane(workerData.channel, ${TO_HOST}, ${CHANNEL_HEADER_BYTES}, ${LANE_RING_BYTES}, (text) => port.postMessage(text), () => undefined);
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
    // null, not undefined: replies cross as JSON, which drops an undefined property.
    const reply = vm.typeof(result.value) === "string" ? vm.getString(result.value) : null;
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
function answer(m, out) {
  if (!out) return;
  out.id = m.id;
  outbox.send(JSON.stringify(out));
  outbox.wake();
}
function crashed(m, e) {
  if (m.id !== undefined) answer(m, { fail: "crash", text: String(e) });
}
// Calls and disposes are served at once. A create is asynchronous (it may load the library): the
// loop returns to the event loop until it has answered, and requests sent after it wait in the lane.
function serve() {
  let served = 0;
  for (;;) {
    if (!inbox.ready) {
      inbox.wait(served === 1 ? workerData.spinMicros : 0);
      served = 0;
    }
    served++;
    const m = JSON.parse(inbox.receive());
    if (m.t === "create") {
      create(m).then((out) => answer(m, out), (e) => crashed(m, e)).then(() => setImmediate(serve));
      return;
    }
    try {
      answer(m, m.t === "call" ? serveCall(m) : m.t === "dispose" ? (drop(m.iid), null) : { fail: "other", text: "unknown request" });
    } catch (e) {
      crashed(m, e);
    }
  }
}
serve();
`;
