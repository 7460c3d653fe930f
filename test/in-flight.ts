/**
 * A gauge for concurrency tests: it counts how many calls are inside it at once and keeps the
 * most it saw, so a test can assert a cap was reached and never passed.
 */

/** A gauge; `hold(ms, then)` stays inside for `ms` milliseconds, leaves, then returns `then()`. */
export function inFlightGauge() {
  let inside = 0;
  const gauge = {
    /** The most calls that were inside at once. */
    most: 0,
    async hold<T>(ms: number, then: () => T | Promise<T>): Promise<T> {
      inside++;
      gauge.most = Math.max(gauge.most, inside);
      try {
        await new Promise((resolve) => setTimeout(resolve, ms));
      } finally {
        inside--;
      }
      return then();
    },
  };
  return gauge;
}
