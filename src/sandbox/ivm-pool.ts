/**
 * @module sandbox/ivm-pool
 * The processes that host isolated-vm isolates. A V8 abort (or a hang isolated-vm cannot
 * terminate) kills one sandbox process, never the host: its in-flight call fails with a coded
 * error, the other guests it held become disposed, and the pool starts a fresh process on demand.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { SpadeError } from "../errors.js";
import { IVM_CHILD_SOURCE, type ChildReply, type ChildRequest } from "./ivm-child.js";
import { PRELUDE_SOURCE } from "./prelude.js";
import { Outbox, RequestQueue, type DisposeRequest, type Unnumbered } from "./host.js";
import { memoryError, opLabel, type GlueOp } from "./protocol.js";

/** Extra time the host waits past a call's own deadline before it kills the sandbox process. */
export const WATCHDOG_GRACE_MS = 2000;

/**
 * Default ceiling on one sandbox process's data memory (RLIMIT_DATA): the second line behind the
 * isolates' own caps, which are soft. Every guest a process holds shares it.
 */
export const DEFAULT_PROCESS_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/**
 * The whole environment of a sandbox process: nothing of the host's (no API keys), a fixed time
 * zone and locale for V8's `Date` and `Intl`.
 */
export const SANDBOX_PROCESS_ENV: Readonly<Record<string, string>> = Object.freeze({
  TZ: "UTC",
  LC_ALL: "C",
});

/**
 * The shell line that starts a sandbox process: \`ulimit -d\` (setrlimit RLIMIT_DATA, in KiB) then
 * exec node. Linux counts private writable mappings against RLIMIT_DATA (since 4.7), so V8's heap,
 * array buffers and malloc all fail there, and V8 aborts the process, which the host reports as
 * E_SANDBOX_MEMORY. A hard limit already lower than asked is kept (the ulimit call then fails).
 */
const START_LINE =
  'ulimit -d "$1" 2>/dev/null; unset PWD OLDPWD; exec "$0" --no-node-snapshot -e "$2"';

/** Default number of sandbox processes: one per core, at most 4. */
export function defaultProcessCount(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

type Numbered = Extract<ChildRequest, { id: number }>;

let ivmPath: string | undefined;

function resolveIvmPath(): string {
  if (ivmPath === undefined) {
    try {
      ivmPath = createRequire(import.meta.url).resolve("isolated-vm");
    } catch (err) {
      throw new SpadeError("E_CONFIG", "the isolated-vm package is not installed", {
        nextStep: "npm install, or use the quickjs backend",
        cause: err,
      });
    }
  }
  return ivmPath;
}

/** One sandbox process and the requests waiting on it (answered in order: it runs one at a time). */
export class IvmProcess {
  readonly #child: ChildProcess;
  readonly #queue: RequestQueue<Numbered, ChildReply>;
  readonly #outbox: Outbox<Numbered | DisposeRequest>;
  #dead = false;
  #reffed: boolean | undefined;
  #stderrTail = "";
  /** Guests created here and not yet disposed (for placement). */
  liveInstances = 0;

  constructor(memoryBytes: number = DEFAULT_PROCESS_MEMORY_BYTES) {
    const path = resolveIvmPath();
    const kib = String(Math.ceil(memoryBytes / 1024));
    this.#child = spawn("/bin/sh", ["-c", START_LINE, process.execPath, kib, IVM_CHILD_SOURCE], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: { ...SANDBOX_PROCESS_ENV },
      cwd: "/",
      serialization: "json",
    });
    this.#outbox = new Outbox((messages) => {
      if (!this.#dead && this.#child.connected)
        this.#child.send(messages.length === 1 ? (messages[0] as Numbered) : messages);
    });
    this.#queue = new RequestQueue<Numbered, ChildReply>({
      send: (request) => this.#outbox.push(request),
      kill: () => this.kill(),
      changed: () => this.#updateRef(),
      graceMs: WATCHDOG_GRACE_MS,
    });
    this.#child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString("utf8")).slice(-400);
    });
    this.#child.on("message", (reply: ChildReply) => this.#queue.settle(reply));
    this.#child.on("exit", (code, signal) => this.#onExit(signal ?? `exit code ${code}`));
    this.#child.on("error", (err) => {
      this.#stderrTail += ` ${err.message}`;
      this.kill();
    });
    this.#child.send({ t: "init", ivmPath: path, prelude: PRELUDE_SOURCE } satisfies ChildRequest);
    this.#updateRef();
  }

  /** The sandbox process's id (undefined if it could not be started). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** True once the process has exited (guests it held are gone). */
  get dead(): boolean {
    return this.#dead;
  }

  /** Sends a request and waits for its answer, killing the process if none comes in time. */
  request(message: Unnumbered<Numbered>, op: GlueOp, timeoutMs: number): Promise<ChildReply> {
    if (this.#dead)
      return Promise.reject(this.#deathError(op, "the sandbox process had already exited"));
    return this.#queue.send(message, op, timeoutMs);
  }

  /** Sends a message that has no answer (dispose). */
  notify(message: DisposeRequest): void {
    if (!this.#dead && this.#child.connected) this.#outbox.push(message);
  }

  /** Kills the process (SIGKILL); pending requests fail when it has exited. */
  kill(): void {
    if (!this.#dead) this.#child.kill("SIGKILL");
  }

  /** The oldest pending request was running: it caused the death; the others are collateral. */
  #onExit(why: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#queue.failAll(
      (op) => this.#deathError(op, `the sandbox process died (${why})`),
      (op) =>
        new SpadeError(
          "E_SANDBOX_DISPOSED",
          `${opLabel(op)}: the sandbox process died while running another guest`,
        ),
    );
  }

  /** V8 prints its out-of-memory report to stderr before aborting; that is the usual cause. */
  #deathError(op: GlueOp, what: string): SpadeError {
    const tail = this.#stderrTail.trim().replace(/\s+/g, " ");
    if (/CALL_AND_RETRY|is_heap_oom|out of memory|OOM/i.test(tail))
      return memoryError(op, `${what}: V8 ran out of memory`);
    return memoryError(op, tail ? `${what}: ${tail.slice(-200)}` : what);
  }

  /** Only a process with requests in flight keeps the host's event loop alive. */
  #updateRef(): void {
    const busy = this.#queue.size > 0 && !this.#dead;
    if (busy === this.#reffed) return;
    this.#reffed = busy;
    const handles = [this.#child, this.#child.channel, this.#child.stderr] as Array<
      { ref(): void; unref(): void } | null | undefined
    >;
    for (const handle of handles) {
      if (busy) handle?.ref();
      else handle?.unref();
    }
  }
}

/** A fixed-size set of sandbox processes; guests go to the least loaded one. */
export class IvmPool {
  readonly size: number;
  readonly processMemoryBytes: number;
  #processes: IvmProcess[] = [];

  constructor(
    size: number = defaultProcessCount(),
    processMemoryBytes: number = DEFAULT_PROCESS_MEMORY_BYTES,
  ) {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new SpadeError(
        "E_CONFIG",
        `sandbox process count must be a positive integer, got ${size}`,
      );
    if (!Number.isSafeInteger(processMemoryBytes) || processMemoryBytes < 256 * 1024 * 1024) {
      throw new SpadeError(
        "E_CONFIG",
        `sandbox process memory must be an integer of at least 256 MiB, got ${processMemoryBytes}`,
        {
          nextStep: "a Node process with isolated-vm needs about 120 MB before any guest runs",
        },
      );
    }
    this.size = size;
    this.processMemoryBytes = processMemoryBytes;
  }

  /**
   * A live process for a new guest (counted in its `liveInstances` from now), starting one while
   * the pool is under its size.
   */
  acquire(): IvmProcess {
    this.#processes = this.#processes.filter((p) => !p.dead);
    if (this.#processes.length < this.size) {
      const fresh = new IvmProcess(this.processMemoryBytes);
      this.#processes.push(fresh);
      fresh.liveInstances++;
      return fresh;
    }
    const best = this.#processes.reduce((a, p) => (p.liveInstances < a.liveInstances ? p : a));
    best.liveInstances++;
    return best;
  }

  /** Kills every process (their guests become disposed). */
  close(): void {
    for (const p of this.#processes) p.kill();
    this.#processes = [];
  }
}
