/**
 * @module bench/bare-boundary
 * The sandbox benchmark's floor: round trips through an isolated-vm sandbox process's wire (frames
 * on a socket pair at fd 3) to a child that only echoes them, with no isolate and no guest.
 */
import { spawn } from "node:child_process";
import type { Socket } from "node:net";
import { encodeFrame, FrameReader } from "../sandbox/index.js";
import { cpuMicros } from "./cpu.js";

/**
 * The floor under every row: a child process that echoes frames on the same wire (a socket pair
 * at fd 3, blocking reads and writes; no isolate, no guest), driven like the light rows: `inFlight`
 * callers, each sending its next frame when the last came back, posted together per turn.
 */
const ECHO_CHILD = `"use strict";
const fs = require("fs");
let buf = Buffer.allocUnsafe(1 << 16), have = 0;
for (;;) {
  const n = fs.readSync(3, buf, have, buf.length - have, null);
  if (n === 0) process.exit(0);
  have += n;
  let off = 0;
  while (have - off >= 4 && have - off >= 4 + buf.readUInt32LE(off)) {
    const len = buf.readUInt32LE(off);
    const batch = JSON.parse(buf.toString("utf8", off + 4, off + 4 + len));
    off += 4 + len;
    for (const m of batch) {
      const out = Buffer.from("    " + JSON.stringify({ id: m.id, reply: 'R{"observation":"ok","reward":0,"terminated":false,"truncated":false,"info":{}}' }));
      out.writeUInt32LE(out.length - 4, 0);
      fs.writeSync(3, out);
    }
  }
  buf.copy(buf, 0, off, have);
  have -= off;
}
`;

/** Round trips per second through the bare boundary (see `ECHO_CHILD`), and CPU µs per round trip. */
async function bareRoundTrips(
  inFlight: number,
  seconds: number,
): Promise<{ rate: number; cpuPerTripUs: number }> {
  const child = spawn(process.execPath, ["-e", ECHO_CHILD], {
    stdio: ["ignore", "ignore", "inherit", "pipe"],
    env: {},
  });
  const wire = child.stdio[3] as unknown as Socket;
  const reader = new FrameReader("the echo process", () => 1 << 20);
  const waiting = new Map<number, () => void>();
  let queued: Array<{ t: string; id: number; op: string; arg: string }> = [];
  let nextId = 1;
  wire.on("data", (chunk: Buffer) => {
    for (const text of reader.push(chunk)) {
      const { id } = JSON.parse(text) as { id: number };
      waiting.get(id)?.();
      waiting.delete(id);
    }
  });
  const trip = () =>
    new Promise<void>((done) => {
      const id = nextId++;
      waiting.set(id, done);
      if (queued.length === 0)
        setImmediate(() => {
          wire.write(encodeFrame(JSON.stringify(queued)));
          queued = [];
        });
      queued.push({
        t: "call",
        id,
        op: "step",
        arg: '{"text":"\\\\boxed{12}","answer":"12","toolCalls":[]}',
      });
    });
  await trip();
  const start = performance.now();
  const cpuBefore = cpuMicros();
  let trips = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < start + seconds * 1000) {
        await trip();
        trips++;
      }
    }),
  );
  const cpuPerTripUs = (cpuMicros() - cpuBefore) / trips;
  const rate = trips / ((performance.now() - start) / 1000);
  child.kill();
  return { rate, cpuPerTripUs };
}

/** Prints the bare boundary's rows: 1 and `concurrent` round trips in flight. */
export async function printBareBoundary(seconds: number, concurrent: number): Promise<void> {
  for (const inFlight of [1, concurrent]) {
    const { rate, cpuPerTripUs } = await bareRoundTrips(inFlight, seconds);
    process.stdout.write(
      `bare boundary (frames echoed by a child process, no isolate), ${inFlight} in flight: ${rate.toFixed(0)} round trips/s, ${cpuPerTripUs.toFixed(0)} µs CPU/round trip\n`,
    );
  }
}
