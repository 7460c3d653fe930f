/**
 * @module cli/progress
 * Progress of long work (a model download, an engine start-up) on stderr: on a terminal one live
 * line rewritten in place, in logs (a pipe, a file) a plain line at most every `logEveryMs`.
 */

/** A progress line. */
export interface Progress {
  /** The current state; shown at once on a TTY, thinned in logs. */
  update(text: string): void;
  /** The final state, always written, ending the line. */
  done(text: string): void;
  /** Erases the live line, if one is shown, so that other output starts on a clean line (nothing in logs). */
  clear(): void;
}

/** Where progress goes: a stream with an `isTTY` flag (process.stderr). */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** A progress line on `stream`; `now` and `logEveryMs` (default 10,000) pace the plain lines of logs. */
export function progressLine(
  stream: ProgressStream,
  options: { now?: () => number; logEveryMs?: number } = {},
): Progress {
  const now = options.now ?? Date.now;
  const every = options.logEveryMs ?? 10_000;
  let lastMs = -Infinity;
  let live = false;
  return {
    update(text) {
      if (stream.isTTY) {
        stream.write(`\r\x1b[K${text}`);
        live = true;
        return;
      }
      if (now() - lastMs < every) return;
      lastMs = now();
      stream.write(`${text}\n`);
    },
    done(text) {
      stream.write(stream.isTTY && live ? `\r\x1b[K${text}\n` : `${text}\n`);
      live = false;
    },
    clear() {
      if (stream.isTTY && live) stream.write("\r\x1b[K");
      live = false;
    },
  };
}

/** A line per finished item of counted work (an evaluation's items). */
export interface ItemProgress {
  /** The line after `done` of `total` items; the last item's is always written and ends the line. */
  item(text: string, done: number, total: number): void;
  /** Erases the live line, if one is shown (work cut short before its last item). */
  clear(): void;
}

/** Item lines on `stream`, paced as `progressLine` paces them; in logs one a second by default. */
export function itemProgress(
  stream: ProgressStream,
  options: { now?: () => number; logEveryMs?: number } = {},
): ItemProgress {
  const line = progressLine(stream, { now: options.now, logEveryMs: options.logEveryMs ?? 1000 });
  return {
    item(text, done, total) {
      if (done < total) line.update(text);
      else line.done(text);
    },
    clear: () => line.clear(),
  };
}

/** Bytes in binary units with one decimal (`512 B`, `1.5 KiB`, `398.0 MiB`, `2.0 GiB`). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/**
 * A bar of `width` cells, `#` for what is done and `-` for the rest: full when `total` is 0
 * (nothing to do), empty when it is unknown (null).
 */
export function progressBar(done: number, total: number | null, width = 24): string {
  const filled =
    total === null ? 0 : total === 0 ? width : Math.min(width, Math.round((width * done) / total));
  return `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
}
