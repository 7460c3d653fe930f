/**
 * @module policy/limiter
 * A counting semaphore with FIFO fairness and AbortSignal support, and a process-wide registry
 * of them so every client of one server shares one limit.
 */
import { SpadeError } from "../errors.js";

/** Gives a slot back; calling it more than once is harmless. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  detach: () => void;
}

/** The error a wait rejects with when its signal aborts. */
function cancelled(what: string): SpadeError {
  return new SpadeError("E_CANCELLED", `${what} was cancelled while waiting for a free slot`);
}

/**
 * At most `capacity` holders at once; waiters are served strictly in arrival order (a released
 * slot is handed to the oldest waiter, never grabbed by a newcomer), so no caller starves.
 */
export class Limiter {
  /** Most holders at once. */
  readonly capacity: number;
  private holders = 0;
  private readonly queue: Waiter[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new SpadeError(
        "E_CONFIG",
        `a limiter needs an integer capacity >= 1 (got ${capacity})`,
      );
    }
    this.capacity = capacity;
  }

  /** Slots held now. */
  get active(): number {
    return this.holders;
  }

  /** Callers waiting for a slot now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Waits for a slot and returns its release. Rejects with E_CANCELLED when `signal` aborts
   * before a slot is granted (the waiter leaves the queue; nothing is held).
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(cancelled("a request"));
    if (this.holders < this.capacity && this.queue.length === 0) {
      this.holders++;
      return Promise.resolve(this.releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(cancelled("a request"));
      };
      const waiter: Waiter = {
        grant: resolve,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Runs `fn` holding a slot; the slot is released however `fn` ends. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) {
        // The slot passes straight to the oldest waiter: `holders` stays the same.
        next.detach();
        next.grant(this.releaser());
      } else {
        this.holders--;
      }
    };
  }
}

/** Maps `items` through `fn` with at most `n` calls in flight (first come, first served); results keep the input order. */
export function mapLimit<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const limiter = new Limiter(Math.max(1, Math.floor(n)));
  return Promise.all(items.map((item, i) => limiter.run(() => fn(item, i))));
}

const SHARED = new Map<string, Limiter>();

/**
 * The process-wide limiter named `key` (e.g. a server's base URL), created with `capacity` on
 * first use. Asking again with a different capacity throws E_CONFIG: two parts of one process
 * must not disagree silently about how hard a server may be pushed.
 */
export function sharedLimiter(key: string, capacity: number): Limiter {
  const existing = SHARED.get(key);
  if (existing) {
    if (existing.capacity !== capacity) {
      throw new SpadeError(
        "E_CONFIG",
        `the shared limiter "${key}" already has capacity ${existing.capacity}, not ${capacity}`,
        {
          nextStep:
            "configure the same maximum of concurrent requests wherever this server is used",
        },
      );
    }
    return existing;
  }
  const limiter = new Limiter(capacity);
  SHARED.set(key, limiter);
  return limiter;
}
