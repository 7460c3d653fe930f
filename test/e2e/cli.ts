/**
 * @module test/e2e/cli
 * Runs the real, built `spade` command (`bin/spade.js` -> `dist/`; `npm test` builds first) for
 * the end-to-end tests: the one place that knows how to start it and collect what it printed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { RunStore } from "../../src/store/index.js";

/** The command's entry point. */
export const BIN = fileURLToPath(new URL("../../bin/spade.js", import.meta.url));

/** What a `spade` process printed and how it ended. */
export interface SpadeResult {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, or null. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** How to start the command, beyond its arguments and environment. */
export interface SpadeSpawnOptions {
  /** Text piped to stdin, which is then closed. Default: no stdin (as from /dev/null). */
  input?: string;
  /** Start it in its own process group, so a test can signal the group as a terminal's Ctrl-C does. Default false. */
  detached?: boolean;
  /** Kill it (SIGTERM) after this many ms. Default: never (the test's own timeout applies). */
  timeoutMs?: number;
}

/** A started `spade` process. */
export interface SpadeProcess {
  /** The process; its stdout and stderr are pipes this module reads. */
  child: ChildProcess;
  /** Resolves when it has exited (by code or signal) and its output is closed. */
  done: Promise<SpadeResult>;
}

/**
 * Starts `spade` with `args`; `env` is added to this process's environment. Never blocks: fake
 * servers live in the test's own process, so a synchronous spawn would deadlock them.
 */
export function spadeAsync(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: SpadeSpawnOptions = {},
): SpadeProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    detached: options.detached ?? false,
    timeout: options.timeoutMs,
  });
  let stdout = "";
  let stderr = "";
  // stdout and stderr are pipes: the stdio option above asks for them.
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  if (options.input !== undefined && child.stdin) {
    // A command that exits before reading all its input closes the pipe; that is not a test failure.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input);
  }
  const done = new Promise<SpadeResult>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** Runs `spade` to completion; see `spadeAsync`. */
export function spade(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: SpadeSpawnOptions = {},
): Promise<SpadeResult> {
  return spadeAsync(args, env, options).done;
}

/** Everything in the run store in `dir` as plain data (`RunStore.dump`), for comparing runs row by row. */
export function storeDump(dir: string): Record<string, unknown> {
  const store = RunStore.open(dir, "read");
  try {
    return store.dump();
  } finally {
    store.close();
  }
}
