/**
 * @module bench/cpu
 * What the benchmarks measure besides wall time: the CPU time of this process and its running
 * children, the machine's load, and the median of repeated rounds.
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";

/**
 * CPU time used so far by this process (its QuickJS workers included) and by its child processes
 * that are still running (the isolated-vm sandbox processes, read from /proc on Linux), in µs.
 * Unlike steps per second it hardly moves with the machine's load.
 */
export function cpuMicros(): number {
  const own = process.cpuUsage();
  let children = 0;
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return own.user + own.system;
  }
  for (const pid of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command (which may hold spaces): state ppid ... utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[1]) !== process.pid) continue;
    children += (Number(fields[11]) + Number(fields[12])) * (1e6 / CLOCK_TICKS_PER_SECOND);
  }
  return own.user + own.system + children;
}

/** Linux's USER_HZ: /proc reports CPU times in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The machine's load averages (1, 5, 15 minutes). */
export function loadLine(): string {
  return `load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}\n`;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
