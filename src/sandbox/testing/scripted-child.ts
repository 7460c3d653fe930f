/**
 * @module sandbox/testing/scripted-child
 * TEST DOUBLE: a sandbox-process program that speaks the frame wire (frames.ts) on fd 3 but runs
 * no isolates. It answers each `call` as its `arg` says, so tests can show how the host treats a
 * process that dies mid-frame, right after a reply, or oversteps the wire.
 */

/**
 * What the scripted process does with a call whose `arg` is (JSON) one of these: `"ok"` replies
 * `R"ok"`; `"half"` writes half of that reply's frame and exits with code 7; `"ok-then-die"`
 * replies, then exits with code 9; `"huge"` writes a length of 2^31 - 1 and a few bytes, then
 * waits; `"not-json"` replies with a frame that is not JSON. Other messages get no answer.
 */
export const SCRIPTED_CHILD_SOURCE = `"use strict";
const fs = require("fs");
function frame(text) {
  const body = Buffer.from(text, "utf8");
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}
function write(buf) { for (let off = 0; off < buf.length; ) off += fs.writeSync(3, buf, off); }
function answer(m) {
  if (m.t !== "call") return;
  const ok = frame(JSON.stringify({ id: m.id, reply: 'R"ok"' }));
  const arg = JSON.parse(m.arg);
  if (arg === "ok") write(ok);
  else if (arg === "half") { write(ok.subarray(0, ok.length >> 1)); process.exit(7); }
  else if (arg === "ok-then-die") { write(ok); process.exit(9); }
  else if (arg === "huge") { const h = Buffer.alloc(8); h.writeUInt32LE(0x7fffffff, 0); write(h); }
  else if (arg === "not-json") write(frame("{not json"));
}
let buf = Buffer.alloc(0);
for (;;) {
  const chunk = Buffer.alloc(65536);
  const n = fs.readSync(3, chunk, 0, chunk.length, null);
  if (n === 0) process.exit(0);
  buf = Buffer.concat([buf, chunk.subarray(0, n)]);
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32LE(0)) {
    const m = JSON.parse(buf.toString("utf8", 4, 4 + buf.readUInt32LE(0)));
    buf = buf.subarray(4 + buf.readUInt32LE(0));
    for (const one of Array.isArray(m) ? m : [m]) answer(one);
  }
}
`;
