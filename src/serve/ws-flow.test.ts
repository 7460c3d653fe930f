// Flow control of a WebSocket's frames, over a TEST DOUBLE socket that delivers a client's frames
// only while it is not paused (as TCP does once the server stops reading): how many frames wait at
// most, by count and by bytes, and that the next frame waits for the answers to be written.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import type { EnvSession } from "./session.js";
import { inOrder, QUEUED_FRAMES } from "./ws-flow.js";

/** TEST DOUBLE of a `ws` server socket: frames the client sent wait in `unread` while it is paused. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  /** Bytes sent and not yet written to the socket (the client leaves answers unread while > 0). */
  bufferedAmount = 0;
  isPaused = false;
  unread: Buffer[] = [];
  pings: Array<() => void> = [];

  send(frames: string[]): void {
    this.unread.push(...frames.map((f) => Buffer.from(f)));
    this.#deliver();
  }
  pause(): void {
    this.isPaused = true;
  }
  resume(): void {
    this.isPaused = false;
    setImmediate(() => this.#deliver());
  }
  ping(_data: undefined, _mask: undefined, written: () => void): void {
    this.pings.push(written);
  }
  #deliver(): void {
    while (!this.isPaused && this.unread.length > 0)
      this.emit("message", this.unread.shift(), false);
  }
}

const SESSION = Promise.resolve({} as EnvSession);
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Handles each frame after a tick, noting the most frames read and not yet handled. */
function slowHandler(socket: FakeSocket, maxQueuedBytes: number) {
  const handled: string[] = [];
  let read = 0;
  let mostWaiting = 0;
  socket.on("message", () => {
    read += 1;
    mostWaiting = Math.max(mostWaiting, read - handled.length);
  });
  inOrder(
    socket as unknown as WebSocket,
    SESSION,
    async (_session, raw) => {
      await tick();
      handled.push(raw);
    },
    maxQueuedBytes,
  );
  return { handled, mostWaiting: () => mostWaiting };
}

/** Resolves once `done()` holds, a tick at a time (a few thousand at most). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 5_000 && !done(); i++) await tick();
}

describe("inOrder", () => {
  it("stops reading while 8 frames wait, and handles all 50 in order", async () => {
    const socket = new FakeSocket();
    const frames = Array.from({ length: 50 }, (_, i) => `frame ${i}`);
    const { handled, mostWaiting } = slowHandler(socket, 1_000_000);
    socket.send(frames);
    expect([QUEUED_FRAMES, socket.isPaused, socket.unread.length]).toEqual([8, true, 42]);
    await until(() => handled.length === frames.length);
    expect(handled).toEqual(frames);
    expect([mostWaiting(), socket.isPaused, socket.unread.length]).toEqual([8, false, 0]);
  });

  it("stops reading while the waiting frames hold maxQueuedBytes", async () => {
    const socket = new FakeSocket();
    const frames = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(40, "."));
    const { handled, mostWaiting } = slowHandler(socket, 100);
    socket.send(frames);
    expect([socket.isPaused, socket.unread.length]).toEqual([true, 7]);
    await until(() => handled.length === frames.length);
    expect([handled, mostWaiting()]).toEqual([frames, 3]);
  });

  it("handles the next frame only once the answers so far are written", async () => {
    const socket = new FakeSocket();
    const handled: string[] = [];
    inOrder(
      socket as unknown as WebSocket,
      SESSION,
      async (_session, raw) => {
        handled.push(raw);
        socket.bufferedAmount = 1_000; // the answer, left unread by the client
      },
      1_000_000,
    );
    socket.send(["a", "b", "c"]);
    await until(() => socket.pings.length === 1);
    await tick();
    expect([handled, socket.pings.length]).toEqual([["a"], 1]);
    socket.bufferedAmount = 0; // the client read it: the ping is written
    socket.pings[0]?.();
    await until(() => socket.pings.length === 2);
    expect(handled).toEqual(["a", "b"]);
  });
});
