/**
 * @module serve/ws-flow
 * A WebSocket's frames handled one at a time in arrival order, under flow control. `ws` reads a
 * socket as fast as the client sends and hands every frame over at once, so a client that sends
 * faster than its frames are handled, or reads none of its answers, had the server queue them
 * without end: one session sending small resets (handled 2,000 a second, sent 130,000 a second)
 * held 250 MB of heap after 1M of them, and 2M took down a server with a 256 MB heap.
 *
 * So the server stops reading a socket while `QUEUED_FRAMES` frames, or `maxQueuedBytes` of them,
 * wait their turn (those already read from the socket still arrive: at most one read's worth), and
 * handles the next frame only once its answers so far are written to the socket (one the client
 * leaves unread stays in the server's buffer). TCP then slows the client down: no frame is dropped,
 * and a client that waits for each answer, as OpenEnv's does, never meets either bound.
 */
import type { WebSocket } from "ws";
import type { EnvSession } from "./session.js";

/** Frames a socket may have waiting (the one being handled included) before it is no longer read. */
export const QUEUED_FRAMES = 8;

/**
 * Runs `handle` on each text frame of `ws` (a binary one reads as "") in arrival order, once `ready`
 * has the session; frames to a socket without a session, or closed meanwhile, are dropped. The
 * socket is paused while `QUEUED_FRAMES` frames or `maxQueuedBytes` bytes of them wait.
 */
export function inOrder(
  ws: WebSocket,
  ready: Promise<EnvSession | null>,
  handle: (session: EnvSession, raw: string) => Promise<void>,
  maxQueuedBytes: number,
): void {
  let chain: Promise<unknown> = ready;
  let queuedFrames = 0;
  let queuedBytes = 0;
  ws.on("message", (data, isBinary) => {
    const frame = data as Buffer;
    queuedFrames += 1;
    queuedBytes += frame.length;
    if ((queuedFrames >= QUEUED_FRAMES || queuedBytes >= maxQueuedBytes) && !ws.isPaused)
      ws.pause();
    chain = chain.then(async () => {
      try {
        const session = await ready;
        if (session && ws.readyState === ws.OPEN) {
          await handle(session, isBinary ? "" : frame.toString("utf8"));
          await written(ws);
        }
      } finally {
        queuedFrames -= 1;
        queuedBytes -= frame.length;
        if (queuedFrames < QUEUED_FRAMES && queuedBytes < maxQueuedBytes && ws.isPaused)
          ws.resume();
      }
    });
  });
}

/**
 * Resolves once everything sent on `ws` so far is written to its socket: at once, unless the
 * client leaves its answers unread. `ws` has no drain event; it calls a ping's callback once the
 * ping is written, which is after everything sent before it (or at once with an error, closed).
 */
function written(ws: WebSocket): Promise<void> {
  if (ws.bufferedAmount === 0) return Promise.resolve();
  return new Promise((resolve) => ws.ping(undefined, undefined, () => resolve()));
}
