/**
 * @module sandbox/ivm-pool
 * The processes that host isolated-vm isolates. A V8 abort (or a hang isolated-vm cannot
 * terminate) kills one sandbox process, never the host: its in-flight call fails with a coded
 * error, the other guests it held become disposed, and the pool starts a fresh process on demand.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import type { Socket } from "node:net";
import { isSpadeError, SpadeError } from "../errors.js";
import { encodeFrame, FrameReader } from "./frames.js";
import { IVM_CHILD_SOURCE, type ChildReply, type ChildRequest } from "./ivm-child.js";
import { PRELUDE_SOURCE } from "./prelude.js";
import type { DisposeRequest } from "./host.js";
import { OOM_FIRST_SH } from "./oom.js";
import { memoryError, type GlueOp } from "./protocol.js";
import { PooledRunner, RunnerPool } from "./runner.js";

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
 * The shell line that starts a sandbox process: the highest out-of-memory score (sandbox/oom.ts),
 * \`ulimit -d\` (setrlimit RLIMIT_DATA, in KiB), then exec node. Linux counts private writable
 * mappings against RLIMIT_DATA (since 4.7), so V8's heap, array buffers and malloc all fail
 * there, and V8 aborts the process, which the host reports as E_SANDBOX_MEMORY. A hard limit
 * already lower than asked is kept (the ulimit call then fails).
 */
const START_LINE = [
  OOM_FIRST_SH,
  'ulimit -d "$1" 2>/dev/null',
  "unset PWD OLDPWD",
  'exec "$0" --no-node-snapshot -e "$2"',
].join("; ");

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

/**
 * Longest reply frame a request with `maxChars` can bring back: a solve's and a step's answer
 * (each at most `maxChars` UTF-16 units, at most 6 bytes each once JSON-escaped) and failure texts
 * the child cuts to the host's message length, with room to spare.
 */
export function replyFrameBound(maxChars: number): number {
  return 12 * maxChars + 64 * 1024;
}

/**
 * One sandbox process and the requests waiting on it (answered in order: it runs one at a time).
 * Messages travel as frames (frames.ts) on a socket pair at the child's fd 3, not on Node's IPC
 * channel: the child serves them with blocking reads and writes (see `IVM_CHILD_SOURCE`). Its
 * death is handled once its output has all been read (`close`, not `exit`), so a reply written
 * just before a crash settles its own request and the crash is blamed on the next one.
 */
export class IvmProcess extends PooledRunner<Numbered, ChildReply> {
  readonly #child: ChildProcess;
  readonly #wire: Socket | undefined;
  readonly #frames: FrameReader;
  #replyBound = replyFrameBound(0);
  #stderrTail = "";
  /** Set when the process broke the wire (a frame over the bound, a frame not JSON). */
  #wireError: SpadeError | undefined;

  /**
   * Starts the process under a `memoryBytes` data ceiling, running `program` (the sandbox
   * process's program, `IVM_CHILD_SOURCE`; tests pass a scripted one that speaks the same wire).
   */
  constructor(
    memoryBytes: number = DEFAULT_PROCESS_MEMORY_BYTES,
    program: string = IVM_CHILD_SOURCE,
  ) {
    super({ name: "the sandbox process", graceMs: WATCHDOG_GRACE_MS });
    const path = resolveIvmPath();
    const kib = String(Math.ceil(memoryBytes / 1024));
    this.#child = spawn("/bin/sh", ["-c", START_LINE, process.execPath, kib, program], {
      stdio: ["ignore", "ignore", "pipe", "pipe"],
      env: { ...SANDBOX_PROCESS_ENV },
      cwd: "/",
    });
    this.#frames = new FrameReader("the sandbox process", () => this.#replyBound);
    this.#wire = (this.#child.stdio[3] ?? undefined) as Socket | undefined;
    this.#wire?.on("data", (chunk: Buffer) => this.#read(chunk));
    // Writing to a process that has died fails (EPIPE); its `close` reports the death.
    this.#wire?.on("error", () => {});
    this.#child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString("utf8")).slice(-400);
    });
    this.#child.on("close", (code, signal) =>
      this.exited(`the sandbox process died (${signal ?? `exit code ${code}`})`),
    );
    this.#child.on("error", (err) => {
      this.#stderrTail += ` ${err.message}`;
      if (this.#child.pid === undefined) this.exited(`the sandbox process did not start`);
      else this.kill();
    });
    this.#write({ t: "init", ivmPath: path, prelude: PRELUDE_SOURCE } satisfies ChildRequest);
    this.updateRef();
  }

  /** The sandbox process's id (undefined if it could not be started). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Kills the process (SIGKILL); pending requests fail when it has exited. */
  kill(): void {
    if (!this.dead) this.#child.kill("SIGKILL");
  }

  protected post(message: Numbered | DisposeRequest | Array<Numbered | DisposeRequest>): void {
    for (const m of Array.isArray(message) ? message : [message]) {
      if ("maxChars" in m)
        this.#replyBound = Math.max(this.#replyBound, replyFrameBound(m.maxChars));
    }
    this.#write(message);
  }

  #write(message: ChildRequest | Array<Numbered | DisposeRequest>): void {
    if (this.#wire?.writable) this.#wire.write(encodeFrame(JSON.stringify(message)));
  }

  /** Settles the replies `chunk` completes; a broken wire ends the process. */
  #read(chunk: Buffer): void {
    if (this.#wireError) return;
    let replies: ChildReply[];
    try {
      replies = this.#frames.push(chunk).map((text) => JSON.parse(text) as ChildReply);
    } catch (err) {
      this.#wireError = isSpadeError(err)
        ? err
        : new SpadeError("E_SANDBOX_THROW", "the sandbox process sent a frame that is not JSON");
      this.kill();
      return;
    }
    for (const reply of replies) this.settle(reply);
  }

  protected goneError(op: GlueOp): SpadeError {
    return this.deathError(op, "the sandbox process had already exited");
  }

  /**
   * A broken wire is the running request's error. Otherwise V8 printed its out-of-memory report
   * to stderr before aborting; that is the usual cause.
   */
  protected deathError(op: GlueOp, what: string): SpadeError {
    if (this.#wireError) return this.#wireError;
    const tail = this.#stderrTail.trim().replace(/\s+/g, " ");
    if (/CALL_AND_RETRY|is_heap_oom|out of memory|OOM/i.test(tail))
      return memoryError(op, `${what}: V8 ran out of memory`);
    return memoryError(op, tail ? `${what}: ${tail.slice(-200)}` : what);
  }

  protected setRef(busy: boolean): void {
    const handles = [this.#child, this.#wire, this.#child.stderr] as Array<
      { ref(): void; unref(): void } | null | undefined
    >;
    for (const handle of handles) {
      if (busy) handle?.ref();
      else handle?.unref();
    }
  }
}

/** A fixed-size set of sandbox processes; guests go to the least loaded one. */
export class IvmPool extends RunnerPool<IvmProcess> {
  readonly processMemoryBytes: number;

  constructor(
    size: number = defaultProcessCount(),
    processMemoryBytes: number = DEFAULT_PROCESS_MEMORY_BYTES,
  ) {
    super(size, "sandbox process count");
    if (!Number.isSafeInteger(processMemoryBytes) || processMemoryBytes < 256 * 1024 * 1024) {
      throw new SpadeError(
        "E_CONFIG",
        `sandbox process memory must be an integer of at least 256 MiB, got ${processMemoryBytes}`,
        {
          nextStep: "a Node process with isolated-vm needs about 120 MB before any guest runs",
        },
      );
    }
    this.processMemoryBytes = processMemoryBytes;
  }

  /** A live process for a new guest, starting one while the pool is under its size. */
  acquire(): IvmProcess {
    return this.place(() => new IvmProcess(this.processMemoryBytes));
  }
}
