/**
 * @module cli/notices
 * Telling the user, on stderr, why a command seems stuck: a model server being retried. Many
 * episodes in flight retry at once, so notices are thinned to one every few seconds, with a
 * count of those left out.
 */
import { formatRetryNotice, type RetryNotice } from "../policy/index.js";

/** Least time between two printed notices. */
export const NOTICE_INTERVAL_MS = 5_000;

/**
 * A retry-notice sink that writes `spade: model server: ...` lines through `write`, at most one
 * per `intervalMs` (the first at once).
 */
export function retryNotices(write: (line: string) => void, now: () => number = Date.now, intervalMs = NOTICE_INTERVAL_MS): (notice: RetryNotice) => void {
  let lastMs = -Infinity;
  let skipped = 0;
  return (notice) => {
    const t = now();
    if (t - lastMs < intervalMs) {
      skipped++;
      return;
    }
    const more = skipped > 0 ? ` (and ${skipped} other retr${skipped === 1 ? "y" : "ies"} since the last notice)` : "";
    lastMs = t;
    skipped = 0;
    write(`spade: model server: ${formatRetryNotice(notice)}${more}\n`);
  };
}

/** The sink of the command line: stderr. */
export const stderrRetryNotices = (): ((notice: RetryNotice) => void) => retryNotices((line) => process.stderr.write(line));
