/**
 * @module cli/notices
 * Telling the user, on stderr, why a command seems stuck: a model server being retried, or an
 * answer that is long in coming. Many episodes in flight wait at once, so notices are thinned to
 * one every few seconds, with a count of those left out.
 */
import {
  formatRetryNotice,
  formatSlowNotice,
  type RetryNotice,
  type SlowNotice,
} from "../policy/index.js";

/** Least time between two printed notices. */
export const NOTICE_INTERVAL_MS = 5_000;

/** The notice hooks of an HTTP client (`onRetry`, `onSlow` of the policy backends). */
export interface ServerNotices {
  onRetry: (notice: RetryNotice) => void;
  onSlow: (notice: SlowNotice) => void;
}

/**
 * Notice hooks that write `spade: model server: ...` lines through `write`, at most one per
 * `intervalMs` for both kinds together (the first at once).
 */
export function serverNotices(
  write: (line: string) => void,
  now: () => number = Date.now,
  intervalMs = NOTICE_INTERVAL_MS,
): ServerNotices {
  let lastMs = -Infinity;
  let skipped = 0;
  const say = (text: string) => {
    const t = now();
    if (t - lastMs < intervalMs) {
      skipped++;
      return;
    }
    const more =
      skipped > 0
        ? ` (and ${skipped} other notice${skipped === 1 ? "" : "s"} since the last one)`
        : "";
    lastMs = t;
    skipped = 0;
    write(`spade: model server: ${text}${more}\n`);
  };
  return { onRetry: (n) => say(formatRetryNotice(n)), onSlow: (n) => say(formatSlowNotice(n)) };
}

/** The notices of the command line: on stderr. */
export const stderrNotices = (): ServerNotices =>
  serverNotices((line) => process.stderr.write(line));
