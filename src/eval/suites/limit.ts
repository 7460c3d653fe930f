/**
 * @module eval/suites/limit
 * Bounded concurrency: at most `n` async tasks at once, in submission order.
 */

/** Runs tasks with at most `n` in flight. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** A limiter allowing `n` (at least 1) concurrent tasks. */
export function createLimiter(n: number): Limiter {
  const max = Math.max(1, Math.floor(n));
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/** Maps `items` through `fn` with at most `n` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], n: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const limit = createLimiter(n);
  return Promise.all(items.map((item, i) => limit(() => fn(item, i))));
}
