/**
 * @module store/fault-injection
 * FAULT INJECTION, for the resume tests only (never a default): a store that kills its own process inside
 * its n-th transaction, after the writes and before the commit.
 */
import type { RunStore } from "./run-store.js";

/**
 * `store`, changed so that its `n`-th transaction (1-based) ends in SIGKILL after `fn` wrote and
 * before the commit; `kill` is the injected end (the real process's SIGKILL by default).
 */
export function killInTransaction(
  store: RunStore,
  n: number,
  kill: () => void = () => process.kill(process.pid, "SIGKILL"),
): RunStore {
  const transaction = store.transaction.bind(store);
  let count = 0;
  store.transaction = <T>(fn: () => T): T =>
    transaction(() => {
      const result = fn();
      if (++count === n) kill();
      return result;
    });
  return store;
}
