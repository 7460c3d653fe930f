/**
 * @module sandbox/runner-queue
 * The wire to one runner (a sandbox process or worker) as the host sees it: requests posted in
 * batches, one message per event-loop turn (`Outbox`), and the requests waiting on it, numbered,
 * watched by one timer and failed by what the runner died of (`RequestQueue`).
 */
import type { SpadeError } from "../errors.js";
import { timeoutError, type GlueOp } from "./protocol.js";

/**
 * Messages to one runner, posted together: what is sent in one turn of the host's event loop
 * (the requests of every episode that a batch of replies let go on) leaves in one message, an
 * array, at the end of that turn (`setImmediate`), in the order sent. Nothing waits longer than
 * that turn, so a request's deadline and watchdog are those of a message posted alone.
 */
export class Outbox<Message> {
  readonly #post: (messages: Message[]) => void;
  #messages: Message[] = [];
  #scheduled = false;

  constructor(post: (messages: Message[]) => void) {
    this.#post = post;
  }

  /** Queues `message` for the end of this turn. */
  push(message: Message): void {
    this.#messages.push(message);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Posts what is queued now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#messages.length === 0) return;
    const messages = this.#messages;
    this.#messages = [];
    this.#post(messages);
  }
}

/** A request as sent, before the queue numbers it. */
export type Unnumbered<R> = R extends { id: number } ? Omit<R, "id"> : never;

interface Pending<Reply> {
  op: GlueOp;
  timeoutMs: number;
  /** When the watchdog ends the runner if this request is still unanswered (`performance.now()`). */
  killAtMs: number;
  resolve: (reply: Reply) => void;
  reject: (err: unknown) => void;
}

/** How a queue reaches its runner. */
export interface QueueHooks<Request> {
  /** Posts a numbered request to the runner. */
  send(request: Request): void;
  /** Ends the runner (its exit then fails what is pending, see `failAll`). */
  kill(): void;
  /** Called when the queue turns busy or idle, and after `failAll` (to ref or unref the runner). */
  changed(): void;
  /** How long past a request's deadline the watchdog waits before killing the runner. */
  graceMs: number;
}

/**
 * The requests waiting on one runner, answered in order (a runner runs one at a time). A request
 * queued behind others may start late, so its watchdog counts from the bound by which the ones
 * before it must have finished, not from when it was sent.
 *
 * One timer watches them all. Each request's kill time (that bound plus its own deadline plus the
 * grace) is later than the kill time of every request sent before it while the queue is busy, so
 * only the oldest pending request can be due: the timer is armed for it and, when it fires, kills
 * the runner if the oldest request still pending is due, else is armed again for that one. A reply
 * touches no timer, and the timer fires about once per grace period while the queue stays busy.
 */
export class RequestQueue<Request extends { id: number }, Reply extends { id: number }> {
  readonly #hooks: QueueHooks<Request>;
  readonly #pending = new Map<number, Pending<Reply>>();
  #nextId = 1;
  #killedByWatchdog: number | undefined;
  #queueEndsAtMs = 0;
  #timer: NodeJS.Timeout | undefined;
  /** When `#timer` fires (`performance.now()`); meaningless while it is undefined. */
  #timerAtMs = 0;

  constructor(hooks: QueueHooks<Request>) {
    this.#hooks = hooks;
  }

  /** Requests sent and not yet answered. */
  get size(): number {
    return this.#pending.size;
  }

  /** Sends `message` and waits for its answer; the runner is killed if none comes in time. */
  send(message: Unnumbered<Request>, op: GlueOp, timeoutMs: number): Promise<Reply> {
    const id = this.#nextId++;
    const now = performance.now();
    const startByMs = Math.max(now, this.#queueEndsAtMs);
    this.#queueEndsAtMs = startByMs + timeoutMs;
    const killAtMs = this.#queueEndsAtMs + this.#hooks.graceMs;
    return new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, { op, timeoutMs, killAtMs, resolve, reject });
      if (this.#timer === undefined || this.#timerAtMs > killAtMs) this.#arm(killAtMs, now);
      if (this.#pending.size === 1) this.#hooks.changed();
      (message as unknown as { id: number }).id = id;
      this.#hooks.send(message as unknown as Request);
    });
  }

  /** Hands a reply to the request it answers. */
  settle(reply: Reply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) {
      this.#queueEndsAtMs = 0;
      this.#hooks.changed();
    }
    pending.resolve(reply);
  }

  /**
   * The runner is gone. The oldest pending request was running: it timed out if the watchdog
   * killed the runner, else it caused the death (`death`); the others are `collateral`.
   */
  failAll(death: (op: GlueOp) => SpadeError, collateral: (op: GlueOp) => SpadeError): void {
    this.#disarm();
    let first = true;
    for (const [id, pending] of this.#pending) {
      if (first && id === this.#killedByWatchdog)
        pending.reject(timeoutError(pending.op, pending.timeoutMs, this.#hooks.graceMs));
      else if (first) pending.reject(death(pending.op));
      else pending.reject(collateral(pending.op));
      first = false;
    }
    this.#pending.clear();
    this.#hooks.changed();
  }

  /** (Re)arms the one timer for `atMs`. It never holds the process open (the runner's ref does). */
  #arm(atMs: number, now: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAtMs = atMs;
    this.#timer = setTimeout(() => this.#watch(), Math.max(1, atMs - now));
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The timer fired: end the runner if its oldest pending request is due, else wait for that one. */
  #watch(): void {
    this.#timer = undefined;
    const oldest = this.#pending.entries().next();
    if (oldest.done) return;
    const [id, pending] = oldest.value;
    const now = performance.now();
    if (pending.killAtMs > now) {
      this.#arm(pending.killAtMs, now);
      return;
    }
    this.#killedByWatchdog = id;
    this.#hooks.kill();
  }
}
