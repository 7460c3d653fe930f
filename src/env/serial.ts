/**
 * @module env/serial
 * `SerialQueue`: the calls on one environment (or session) run one at a time, in call order.
 */

/** Runs tasks one at a time in the order given; a task that fails does not stop the next. */
export class SerialQueue {
  readonly #refusal: () => Error | null;
  #tail: Promise<unknown> = Promise.resolve();

  /** `refusal`, asked as each task is about to start, gives the error that refuses it (or null). */
  constructor(refusal: () => Error | null = () => null) {
    this.#refusal = refusal;
  }

  /** Runs `task` after every task queued before it has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(() => {
      const refused = this.#refusal();
      if (refused) throw refused;
      return task();
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
