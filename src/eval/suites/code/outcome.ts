/**
 * @module eval/suites/code/outcome
 * What a finished Python run means: passed, a failed assertion, another exception, a time or
 * memory limit, a blocked network access, or death by a signal, read from the exit status and
 * the last line of the traceback.
 */

/** The recorded reason a run ended. */
export type PythonOutcome =
  | "passed"
  | "failed"
  | "error"
  | "timeout"
  | "memory"
  | "network"
  | "killed";

/** Exit status of the sandbox init: 128 + n means the program died from signal n. */
const SIGNAL_NAMES: Record<number, string> = {
  6: "SIGABRT",
  9: "SIGKILL",
  11: "SIGSEGV",
  15: "SIGTERM",
  24: "SIGXCPU",
  25: "SIGXFSZ",
};

/** errno values and messages of a socket call that found no network (fresh namespace, lo down). */
const NETWORK_FAILURE =
  /Network is unreachable|No route to host|Cannot assign requested address|Temporary failure in name resolution|Name or service not known|No address associated|Connection refused|\[Errno (?:101|99|111|113|-2|-3|-5)\]/;

/** The last exception line of a Python traceback (`ValueError: bad`), or "" when there is none. */
export function lastExceptionLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    if (
      /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|gaierror|herror|timeout)\b(?::|$)/.test(
        line,
      )
    )
      return line;
  }
  return lines[lines.length - 1] ?? "";
}

/** The signal name for an init exit status of 128 + n, else null. */
export function signalOfStatus(status: number | null): string | null {
  if (status === null || status <= 128 || status > 128 + 64) return null;
  return SIGNAL_NAMES[status - 128] ?? `SIG${status - 128}`;
}

/** Facts about a finished run that decide its outcome. */
export interface RunFacts {
  /** Exit status, null when killed by a signal. */
  exitCode: number | null;
  /** Signal that killed the top process, or null. */
  signal: string | null;
  /** The wall-clock limit fired and the host killed the run. */
  timedOut: boolean;
  /** Captured standard error (possibly truncated at its start). */
  stderr: string;
  /** Processes the run's memory cgroup killed at its cap (none without a cgroup). Default 0. */
  memoryKills?: number;
}

/** Classifies a finished run; `detail` is the exception line or signal behind the outcome. */
export function classifyRun(facts: RunFacts): { outcome: PythonOutcome; detail: string } {
  const line = lastExceptionLine(facts.stderr);
  // A MemoryError counts even when freeing the memory then ran past a limit.
  if (facts.exitCode !== 0 && /^MemoryError\b/.test(line))
    return { outcome: "memory", detail: line };
  const kills = facts.memoryKills ?? 0;
  if (facts.exitCode !== 0 && kills > 0) {
    const processes = kills === 1 ? "1 process" : `${kills} processes`;
    return { outcome: "memory", detail: `memory cgroup limit (${processes} killed)` };
  }
  if (facts.timedOut) return { outcome: "timeout", detail: "wall-clock limit" };
  const signal = facts.signal ?? signalOfStatus(facts.exitCode);
  if (signal === "SIGXCPU") return { outcome: "timeout", detail: "CPU limit (SIGXCPU)" };
  if (facts.exitCode === 0) return { outcome: "passed", detail: "" };
  if (signal !== null) return { outcome: "killed", detail: signal };
  if (/^AssertionError\b/.test(line)) return { outcome: "failed", detail: line };
  if (NETWORK_FAILURE.test(line)) return { outcome: "network", detail: line };
  return { outcome: "error", detail: line || `exit status ${facts.exitCode}` };
}
