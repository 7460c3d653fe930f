/**
 * @module sandbox/runner
 * What the two pooled JavaScript backends' runners (an isolated-vm sandbox process, a QuickJS
 * worker thread) share: the queue and outbox of one runner, how its death fails what is pending,
 * when it keeps the host alive; and the fixed-size pool that places guests on the least loaded.
 */
import { SpadeError } from "../errors.js";
import type { DisposeRequest } from "./host.js";
import { Outbox, RequestQueue, type Unnumbered } from "./runner-queue.js";
import { LostToAnotherGuest, opLabel, type GlueOp } from "./protocol.js";

/** How a runner is named in the errors of its guests, and how long its watchdog waits. */
export interface RunnerTraits {
  /** "the sandbox process", "the QuickJS worker". */
  name: string;
  /** Extra time past a request's deadline before the runner is ended. */
  graceMs: number;
}

/**
 * One runner (a `GuestRunner`) and the requests waiting on it (answered in order: it runs one at a time). A
 * subclass starts the real process or thread, posts messages to it, feeds its replies to `settle`
 * and its exit to `exited`.
 */
export abstract class PooledRunner<Request extends { id: number }, Reply extends { id: number }> {
  readonly #traits: RunnerTraits;
  readonly #queue: RequestQueue<Request, Reply>;
  readonly #outbox: Outbox<Request | DisposeRequest>;
  #dead = false;
  #reffed: boolean | undefined;
  /** Guests placed here and not yet disposed (for placement). */
  liveInstances = 0;

  protected constructor(traits: RunnerTraits) {
    this.#traits = traits;
    this.#outbox = new Outbox((messages) => {
      if (!this.#dead) this.post(messages.length === 1 ? (messages[0] as Request) : messages);
    });
    this.#queue = new RequestQueue<Request, Reply>({
      send: (request) => this.#outbox.push(request),
      kill: () => this.kill(),
      changed: () => this.updateRef(),
      graceMs: traits.graceMs,
    });
  }

  /** Posts one message, or a batch of them (an array), to the runner. */
  protected abstract post(
    message: Request | DisposeRequest | Array<Request | DisposeRequest>,
  ): void;
  /** Ends the runner; pending requests fail when it has exited (`exited`). */
  abstract kill(): void;
  /** Refs (busy) or unrefs the runner's handles. */
  protected abstract setRef(busy: boolean): void;
  /** The error of the request that was running when the runner died of `why`. */
  protected abstract deathError(op: GlueOp, why: string): SpadeError;
  /** The error of a request sent after the runner had died. */
  protected abstract goneError(op: GlueOp): SpadeError;

  /** Requests sent and not yet answered. */
  protected get pending(): number {
    return this.#queue.size;
  }

  /** True once the runner has exited (guests it held are gone). */
  get dead(): boolean {
    return this.#dead;
  }

  /** Sends a request and waits for its answer, ending the runner if none comes in time. */
  request(message: Unnumbered<Request>, op: GlueOp, timeoutMs: number): Promise<Reply> {
    if (this.#dead) return Promise.reject(this.goneError(op));
    return this.#queue.send(message, op, timeoutMs);
  }

  /** Sends a message that has no answer (dispose). */
  notify(message: DisposeRequest): void {
    if (!this.#dead) this.#outbox.push(message);
  }

  /** Hands a reply to the request it answers. */
  protected settle(reply: Reply): void {
    this.#queue.settle(reply);
  }

  /** The runner is gone: the oldest pending request was running and caused it, the others are collateral. */
  protected exited(why: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#queue.failAll(
      (op) => this.deathError(op, why),
      (op) =>
        new SpadeError(
          "E_SANDBOX_DISPOSED",
          `${opLabel(op)}: ${this.#traits.name} died while running another guest`,
          { cause: new LostToAnotherGuest(this.#traits.name) },
        ),
    );
  }

  /** Only a runner with requests in flight keeps the host's event loop alive. */
  protected updateRef(): void {
    const busy = this.#queue.size > 0 && !this.#dead;
    if (busy === this.#reffed) return;
    this.#reffed = busy;
    this.setRef(busy);
  }
}

/** What a pool needs of its runners. */
export interface Placeable {
  readonly dead: boolean;
  liveInstances: number;
  kill(): void;
}

/** A fixed-size set of runners; guests go to the least loaded one. */
export class RunnerPool<R extends Placeable> {
  readonly size: number;
  #runners: R[] = [];

  /** `what` names the size in its error ("sandbox process count"). */
  constructor(size: number, what: string) {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new SpadeError("E_CONFIG", `${what} must be a positive integer, got ${size}`);
    this.size = size;
  }

  /**
   * A live runner for a new guest (counted in its `liveInstances` from now, so guests loaded at
   * once spread over the pool), starting one with `start` while the pool is under its size.
   */
  protected place(start: () => R): R {
    this.#runners = this.#runners.filter((r) => !r.dead);
    let chosen: R;
    if (this.#runners.length < this.size) {
      chosen = start();
      this.#runners.push(chosen);
    } else {
      chosen = this.#runners.reduce((a, r) => (r.liveInstances < a.liveInstances ? r : a));
    }
    chosen.liveInstances++;
    return chosen;
  }

  /** Ends every runner (their guests become disposed). */
  close(): void {
    for (const r of this.#runners) r.kill();
    this.#runners = [];
  }
}
