/**
 * @module policy/outage
 * Telling a model server that is down from one that failed a request. A request that fails after
 * all its retries is recorded where it happened (a failed episode, a failed design attempt) and
 * the work goes on; but when `after` requests in a row fail that way, with none answered in
 * between, the server is down (or the URL, key or model name is wrong), and every further request
 * would only add another failure to the run. The breaker then trips: its signal aborts, so the
 * work in flight stops as on Ctrl-C (nothing half-done is stored) and `error` says why.
 */
import { describeError, isSpadeError, SpadeError } from "../errors.js";

/** Codes of a request the server did not answer after its retries: the server's fault, not the model's. */
export const OUTAGE_CODES: ReadonlySet<string> = new Set(["E_POLICY_HTTP", "E_POLICY_TIMEOUT"]);

/** True when `err` is a request failure that counts toward an outage (see `OUTAGE_CODES`). */
export function isOutageFailure(err: unknown): boolean {
  return isSpadeError(err) && OUTAGE_CODES.has(err.code);
}

/** Settings of an `OutageBreaker`. */
export interface OutageOptions {
  /** Requests failed in a row (none answered in between) that trip the breaker; at least 1. */
  after: number;
  /**
   * What the user does once the server answers again (e.g. the resume command); a function is
   * called when the breaker trips, for a step that depends on how far the work got.
   */
  nextStep: string | (() => string);
}

/**
 * Counts how a server's requests end. Requests are counted as they end, in any order: one that is
 * answered resets the count, one that fails with an outage code adds to it, anything else (a
 * cancelled request, a malformed answer) leaves it as it is. A command that talks to a second
 * server (ACEBench's simulated user on `--user-base-url`) names it: each server has its own count,
 * since answers of one say nothing of the other, and either's outage trips the breaker.
 */
export class OutageBreaker {
  /** Failed in a row, by server ("": the command's own model server). */
  private readonly failedInARow = new Map<string, number>();
  private readonly controller = new AbortController();
  private tripped: SpadeError | null = null;

  constructor(private readonly options: OutageOptions) {
    if (!Number.isInteger(options.after) || options.after < 1)
      throw new SpadeError(
        "E_CONFIG",
        `an outage is at least 1 failed request in a row (got ${options.after})`,
      );
  }

  /** Aborts when the breaker trips; combine it with the work's own signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the breaker tripped (E_POLICY_UNAVAILABLE), or null while it has not. */
  get error(): SpadeError | null {
    return this.tripped;
  }

  /** Runs one request to `server` and counts how it ended; its result or failure is passed on unchanged. */
  async watch<T>(request: () => Promise<T>, server = ""): Promise<T> {
    let result: T;
    try {
      result = await request();
    } catch (err) {
      this.failed(err, server);
      throw err;
    }
    this.answered(server);
    return result;
  }

  /** `fn` with every call watched (as requests to `server`), and the properties `fn` carries (an agent's `trace`) kept. */
  wrap<F extends (...args: never[]) => Promise<unknown>>(fn: F, server = ""): F {
    const watched = (...args: Parameters<F>) => this.watch(() => fn(...args), server);
    return Object.assign(watched, fn) as unknown as F;
  }

  /** Counts an answered request: `server` is up. */
  answered(server = ""): void {
    if (this.tripped === null) this.failedInARow.set(server, 0);
  }

  /** Counts a failed request to `server`; its `after`-th outage failure in a row trips the breaker. */
  failed(err: unknown, server = ""): void {
    if (this.tripped !== null || !isOutageFailure(err)) return;
    const count = (this.failedInARow.get(server) ?? 0) + 1;
    this.failedInARow.set(server, count);
    if (count < this.options.after) return;
    this.tripped = new SpadeError(
      "E_POLICY_UNAVAILABLE",
      this.options.after === 1
        ? `a model request failed after its retries (${describeError(err)}); stopped so that no more work fails`
        : `${this.options.after} model requests in a row failed after their retries, none answered in between (the last: ${describeError(err)}); stopped so that no more work fails`,
      {
        nextStep:
          typeof this.options.nextStep === "function"
            ? this.options.nextStep()
            : this.options.nextStep,
        cause: err,
      },
    );
    this.controller.abort(this.tripped);
  }
}
