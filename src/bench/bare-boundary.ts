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
 * How long, in µs, the polling echo child polls its socket for the next frame after a reply
 * before it sleeps in its blocking read. The experiment of issue 15's last round: a sleeping
 * process (and its core, on a VM) wakes slowly, and at one round trip in flight the next frame
 * comes a few tens of µs after the reply. Measured here and in the sandbox processes, it did not
 * pay on 2 shared cores (docs/sandbox.md, "Where a light step's time goes"), so only this row has it.
 */
export const POLL_MICROS = 100;

/**
 * Plain JavaScript (it needs `fs`) defining `openPoll(fd)`, a libuv pipe handle on the socket `fd`
 * that never reads and only switches the fd's blocking mode (null where it cannot be made), and
 * `pollRead(pipe, fd, buf, offset, length)`: reads `fd` without blocking for up to `POLL_MICROS`,
 * returning the bytes read (0 at end of input) or -1 when nothing came; the fd is blocking again
 * when it returns. A failed read costs about 4 µs of CPU (Node throws its EAGAIN; the stack trace
 * is switched off meanwhile).
 */
/** The polling echo child's exit status where it cannot switch fd 3's blocking mode. */
const NO_POLL_EXIT = 3;

const POLL_SOURCE = `function openPoll(fd) {
  try {
    const { Pipe, constants } = process.binding("pipe_wrap");
    const pipe = new Pipe(constants.SOCKET);
    return pipe.open(fd) === 0 && pipe.setBlocking(true) === 0 ? pipe : null;
  } catch (e) { return null; }
}
function pollRead(pipe, fd, buf, offset, length) {
  const until = performance.now() + ${POLL_MICROS / 1000};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  pipe.setBlocking(false);
  try {
    for (;;) {
      try { return fs.readSync(fd, buf, offset, length, null); }
      catch (e) { if (e.code !== "EAGAIN") throw e; }
      if (performance.now() >= until) return -1;
    }
  } finally {
    pipe.setBlocking(true);
    Error.stackTraceLimit = limit;
  }
}`;

/**
 * The floor under every row: a child process that echoes frames on the same wire (a socket pair
 * at fd 3, blocking reads and writes; no isolate, no guest), driven like the light rows: `inFlight`
 * callers, each sending its next frame when the last came back, posted together per turn. With
 * `poll`, the child polls for the next frame for `POLL_MICROS` after a reply (`POLL_SOURCE`);
 * without, it goes straight to the blocking read, as a sandbox process does.
 */
function echoChild(poll: boolean): string {
  return `"use strict";
const fs = require("fs");
${POLL_SOURCE}
const pipe = ${poll} ? openPoll(3) : null;
if (${poll} && pipe === null) process.exit(${NO_POLL_EXIT});
let buf = Buffer.allocUnsafe(1 << 16), have = 0, replied = false;
for (;;) {
  let n = replied && pipe !== null ? pollRead(pipe, 3, buf, have, buf.length - have) : -1;
  replied = false;
  if (n < 0) n = fs.readSync(3, buf, have, buf.length - have, null);
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
      replied = true;
    }
  }
  buf.copy(buf, 0, off, have);
  have -= off;
}
`;
}

/** Round trips per second through the bare boundary (see `ECHO_CHILD`), and CPU µs per round trip. */
async function bareRoundTrips(
  inFlight: number,
  seconds: number,
  poll: boolean,
): Promise<{ rate: number; cpuPerTripUs: number }> {
  const child = spawn(process.execPath, ["-e", echoChild(poll)], {
    stdio: ["ignore", "ignore", "inherit", "pipe"],
    env: {},
  });
  const wire = child.stdio[3] as unknown as Socket;
  const reader = new FrameReader("the echo process", () => 1 << 20);
  const waiting = new Map<number, () => void>();
  // An echo child that ends before it is killed fails the row instead of leaving it waiting.
  let died: Error | undefined;
  const death = new Promise<never>((_, fail) =>
    child.on("exit", (code) => {
      died = new Error(
        code === NO_POLL_EXIT
          ? "the echo child cannot switch fd 3's blocking mode (process.binding is gone?)"
          : `the echo child ended (exit status ${code})`,
      );
      fail(died);
    }),
  );
  death.catch(() => undefined);
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
  await Promise.race([trip(), death]);
  const start = performance.now();
  const cpuBefore = cpuMicros();
  let trips = 0;
  await Promise.race([
    Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < start + seconds * 1000 && !died) {
          await trip();
          trips++;
        }
      }),
    ),
    death,
  ]);
  const cpuPerTripUs = (cpuMicros() - cpuBefore) / trips;
  const rate = trips / ((performance.now() - start) / 1000);
  child.kill();
  return { rate, cpuPerTripUs };
}

/**
 * Prints the bare boundary's rows: 1 and `concurrent` round trips in flight, the child sleeping in
 * its blocking read after each reply (as a sandbox process does), then polling first for
 * `POLL_MICROS`.
 */
export async function printBareBoundary(seconds: number, concurrent: number): Promise<void> {
  for (const poll of [false, true]) {
    for (const inFlight of [1, concurrent]) {
      const { rate, cpuPerTripUs } = await bareRoundTrips(inFlight, seconds, poll);
      const how = poll ? `, polling ${POLL_MICROS} µs after a reply` : "";
      process.stdout.write(
        `bare boundary (frames echoed by a child process, no isolate${how}), ${inFlight} in flight: ${rate.toFixed(0)} round trips/s, ${cpuPerTripUs.toFixed(0)} µs CPU/round trip\n`,
      );
    }
  }
}
