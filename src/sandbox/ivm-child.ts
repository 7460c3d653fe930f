/**
 * @module sandbox/ivm-child
 * The program each isolated-vm sandbox process runs (as `node --no-node-snapshot -e`): it owns
 * isolates and answers the parent's create/call/dispose messages, read and written as frames
 * (frames.ts) on file descriptor 3. It lives in a separate process because V8 aborts the whole
 * process on some out-of-memory paths an isolate cannot unwind (measured: growing one object's
 * properties in a loop, `new Array(5e7).fill(0)`).
 */

import type { CallRequest, CreateFields, DisposeRequest, RunnerReply } from "./host.js";
import { ORACLE_STEP_ARG_SOURCE } from "./oracle-turn.js";
import { GUEST_MESSAGE_CHARS } from "./prelude.js";

/** Parent -> child messages (after `init`, an array of them may come as one frame). */
export type ChildRequest =
  | { t: "init"; ivmPath: string; prelude: string }
  | (CreateFields & { id: number; memoryMiB: number })
  | CallRequest
  | DisposeRequest;

/**
 * Child -> parent answers: the glue's tagged reply, or why there is none. After `timeout` and
 * `memory` the child has already dropped the isolate; `compile` means the source did not parse
 * or its top level threw; `rejected` means the call finished but left a promise rejection
 * unhandled, which isolated-vm throws in place of the answer (the guest is kept); `other` is
 * anything unexpected (the text says what).
 */
export type IvmFail = "timeout" | "memory" | "compile" | "disposed" | "rejected" | "other";

/** A child's answer (see `IvmFail`). */
export type ChildReply = RunnerReply<IvmFail>;

/**
 * The child program (CommonJS, run with `node -e`). Kept in one string so builds need no copy step.
 *
 * It serves synchronously: a blocking read of fd 3 (its end of a socket pair, left blocking by
 * libuv) waits for requests, each request's reply is written with a blocking write as soon as its
 * call returns (also within a batch), so a request's watchdog and the blame for a death are those
 * of a request sent alone. No event-loop turn, poll or 64 KiB read buffer per message; the event
 * loop still gets a turn every 20 ms of service (isolated-vm and V8 post tasks to it). End of
 * input (the host closed its end or died) ends the process. Failure texts are cut to the host's
 * message length, so a reply is bounded by its call's `maxChars` (see `replyFrameBound`).
 */
export const IVM_CHILD_SOURCE = `"use strict";
${ORACLE_STEP_ARG_SOURCE}
const fs = require("fs");
const FD = 3;
let ivm = null, PRELUDE = null, loadError = null;
const instances = new Map();
function clip(s) { return s.length > ${GUEST_MESSAGE_CHARS} ? s.slice(0, ${GUEST_MESSAGE_CHARS}) + "..." : s; }
function text(e) {
  try { return clip(e instanceof Error ? e.name + ": " + e.message : String(e)); } catch (e2) { return "unprintable error"; }
}
function failure(isolate, e) {
  if (isolate.isDisposed) return { fail: "memory", text: "the isolate reached its heap limit" };
  if (e instanceof Error && /execution timed out/i.test(e.message)) return { fail: "timeout", text: "" };
  return { fail: "other", text: text(e) };
}
function drop(iid) {
  const inst = instances.get(iid);
  if (!inst) return;
  instances.delete(iid);
  try { if (!inst.isolate.isDisposed) inst.isolate.dispose(); } catch (e) {}
}
function callGlue(iid, op, arg, maxChars, timeoutMs) {
  const inst = instances.get(iid);
  if (!inst) return { fail: "disposed", text: "" };
  try {
    return { reply: inst.glue.applySync(undefined, [op, arg, maxChars], { timeout: Math.max(1, Math.ceil(timeoutMs)) }) };
  } catch (e) {
    const f = failure(inst.isolate, e);
    // The glue catches every synchronous exception: what else escapes is an unhandled rejection.
    if (f.fail === "other") f.fail = "rejected";
    else drop(iid);
    return f;
  }
}
function create(m) {
  // The compile's budget also pays for making the isolate.
  const deadline = Date.now() + m.timeoutMs;
  const isolate = new ivm.Isolate({ memoryLimit: m.memoryMiB });
  const remaining = () => Math.max(1, deadline - Date.now());
  try {
    const context = isolate.createContextSync();
    const prelude = isolate.compileScriptSync(PRELUDE, { filename: "spade-prelude.js" });
    const glue = prelude.runSync(context, { reference: true, timeout: remaining() });
    prelude.release();
    let script;
    try {
      script = isolate.compileScriptSync(m.source, { filename: "environment.js" });
    } catch (e) {
      isolate.dispose();
      return { fail: "compile", text: text(e) };
    }
    try {
      script.runSync(context, { timeout: remaining() });
    } catch (e) {
      const f = failure(isolate, e);
      if (f.fail === "other") f.fail = "compile";
      if (!isolate.isDisposed) isolate.dispose();
      return f;
    }
    script.release();
    instances.set(m.iid, { isolate, glue });
    return callGlue(m.iid, "init", null, m.maxChars, remaining());
  } catch (e) {
    const f = failure(isolate, e);
    if (!isolate.isDisposed) isolate.dispose();
    return f;
  }
}
function send(out) {
  const json = JSON.stringify(out);
  const bytes = Buffer.byteLength(json);
  const frame = Buffer.allocUnsafe(4 + bytes);
  frame.writeUInt32LE(bytes, 0);
  frame.write(json, 4, "utf8");
  for (let off = 0; off < frame.length; ) off += fs.writeSync(FD, frame, off);
}
function handle(m) {
  if (m.t === "init") {
    try { ivm = require(m.ivmPath); PRELUDE = m.prelude; } catch (e) { loadError = "cannot load isolated-vm: " + text(e); }
    return;
  }
  if (m.t === "dispose") { drop(m.iid); return; }
  let out;
  if (loadError !== null) out = { fail: "other", text: loadError };
  else if (m.t === "create") out = create(m);
  else if (m.t === "call") {
    out = callGlue(m.iid, m.op, m.arg, m.maxChars, m.timeoutMs);
    const stepArg = m.thenStepMs === undefined || !("reply" in out) ? null : oracleStepArg(out.reply, m.maxChars);
    if (stepArg !== null) out.step = callGlue(m.iid, "step", stepArg, m.maxChars, m.thenStepMs);
  }
  else out = { fail: "other", text: "unknown request" };
  out.id = m.id;
  send(out);
}
let buf = Buffer.allocUnsafe(65536), start = 0, end = 0, servedSince = Date.now();
function serve() {
  for (;;) {
    while (end - start >= 4) {
      const length = buf.readUInt32LE(start);
      if (end - start - 4 < length) break;
      const m = JSON.parse(buf.toString("utf8", start + 4, start + 4 + length));
      start += 4 + length;
      if (Array.isArray(m)) for (const one of m) handle(one);
      else handle(m);
    }
    if (start === end) start = end = 0;
    if (end === buf.length || (end - start >= 4 && start + 4 + buf.readUInt32LE(start) > buf.length)) {
      // Make room for the frame at the front: move it to the start, in a larger buffer if needed.
      const need = end - start >= 4 ? 4 + buf.readUInt32LE(start) : 65536;
      const next = need > buf.length ? Buffer.allocUnsafe(need) : buf;
      buf.copy(next, 0, start, end);
      end -= start;
      start = 0;
      buf = next;
    }
    if (Date.now() - servedSince >= 20) {
      servedSince = Date.now();
      setImmediate(serve);
      return;
    }
    const n = fs.readSync(FD, buf, end, buf.length - end, null);
    if (n === 0) process.exit(0);
    end += n;
  }
}
serve();
`;
