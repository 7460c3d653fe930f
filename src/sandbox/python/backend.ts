/**
 * @module sandbox/python/backend
 * The Python sandbox backend: one jailed CPython process per environment (bubblewrap namespaces,
 * seccomp, rlimits), spoken to over pipes one JSON line per call, killed when a call runs 2 s past
 * its CPU deadline, answers larger than `outputBytes`, or the guest runs out of memory. A process
 * left without a call is stopped (SIGSTOP), so guest code outside every deadline runs briefly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { SpadeError, WatchdogKill, type ErrorCode } from "../../errors.js";
import type { GuestMethod, SandboxBackend, SandboxInstance, SandboxLimits } from "../types.js";
import { findJailTools, jailCommand, type JailToolOptions, type JailTools } from "./jail.js";
import { buildSeccompFilter } from "./seccomp.js";

/** Wall-clock slack past a call's CPU deadline before the host kills the process. */
export const WATCHDOG_GRACE_MS = 2000;
/** Wall-clock allowance for starting the jail and the interpreter, on top of `compileTimeoutMs`. */
export const STARTUP_ALLOWANCE_MS = 10_000;
/**
 * How long an interpreter may sit without a call before it is stopped (SIGSTOP), at most twice
 * this. Not at once after every answer: a signal pair per call cost ~4x a light step.
 */
export const IDLE_STOP_MS = 100;
/** The runner's exit status when its CPU deadline fired. */
const DEADLINE_EXIT = 3;

/** Meta values a host knows from outside the program (a pool manifest), used where it gives none. */
export interface PythonMetaDefaults {
  name?: string;
  skill?: string;
  description?: string;
  maxTurns?: number;
}

/** Options of `createPythonBackend`. */
export interface PythonBackendOptions extends JailToolOptions {
  /** Meta defaults for every program this backend loads. */
  metaDefaults?: PythonMetaDefaults;
}

const KIND_CODES: Record<string, ErrorCode> = {
  compile: "E_SANDBOX_COMPILE",
  memory: "E_SANDBOX_MEMORY",
  output: "E_SANDBOX_OUTPUT_SIZE",
  contract: "E_ENV_CONTRACT",
  throw: "E_SANDBOX_THROW",
};

const NEXT_STEPS: Partial<Record<ErrorCode, string>> = {
  E_SANDBOX_COMPILE:
    "fix the program: it must define a class named Environment (or ending in Env) with reset(seed) and step(action)",
  E_SANDBOX_MEMORY: "use less memory or shallower recursion",
  E_SANDBOX_OUTPUT_SIZE: "return shorter observations",
  E_ENV_CONTRACT: "see docs/sandbox.md, section Python programs",
  E_SANDBOX_THROW: "fix the exception in the program",
  E_SANDBOX_TIMEOUT: "make the call cheaper; no loop may outlive its deadline",
};

function coded(code: ErrorCode, message: string): SpadeError {
  return new SpadeError(code, message, { nextStep: NEXT_STEPS[code] ?? "load the program again" });
}

interface Pending {
  method: string;
  resolve(json: string): void;
  reject(err: SpadeError): void;
  timer: NodeJS.Timeout;
}

/** One jailed interpreter holding one environment instance. */
class PythonInstance implements SandboxInstance {
  #child: ChildProcess;
  #pending: Pending | null = null;
  #buffer = "";
  #disposed = false;
  #killedFor: ErrorCode | null = null;
  #stderr = "";
  #limits: SandboxLimits;
  /** The interpreter's pid (bwrap's `--info-fd`), once known; null before. */
  #pid: number | null = null;
  #info = "";
  /** True while the interpreter is held with SIGSTOP (idle between calls). */
  #stopped = false;
  /** Checks every IDLE_STOP_MS whether a call came since the last check; stops the idle. */
  #idleTimer: NodeJS.Timeout | null = null;
  #calledSinceCheck = false;

  constructor(tools: JailTools, limits: SandboxLimits) {
    this.#limits = limits;
    const { command, args } = jailCommand(tools, limits.memoryBytes);
    this.#child = spawn(command, args, {
      stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
      env: {},
      cwd: "/",
    });
    const seccompPipe = this.#child.stdio[3] as NodeJS.WritableStream | null;
    seccompPipe?.end(buildSeccompFilter());
    this.#child.stdout?.setEncoding("utf8");
    this.#child.stdout?.on("data", (chunk: string) => this.#onData(chunk));
    this.#child.stderr?.setEncoding("utf8");
    this.#child.stderr?.on("data", (chunk: string) => {
      if (this.#stderr.length < 2000) this.#stderr += chunk.slice(0, 2000 - this.#stderr.length);
    });
    const info = this.#child.stdio[4] as NodeJS.ReadableStream | null;
    info?.setEncoding("utf8");
    info?.on("data", (chunk: string) => this.#onInfo(chunk));
    info?.on("error", () => undefined);
    this.#child.stdin?.on("error", () => undefined);
    (this.#child.stdio[3] as NodeJS.WritableStream | null)?.on("error", () => undefined);
    this.#child.on("error", (err) =>
      this.#fail(
        coded("E_SANDBOX_UNAVAILABLE", `the Python sandbox could not start: ${err.message}`),
      ),
    );
    // "close", not "exit": the answer a process wrote just before exiting is read first.
    this.#child.on("close", (code, signal) => this.#onExit(code, signal));
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Sends the program; resolves once it is loaded. */
  load(source: string, defaults: PythonMetaDefaults | undefined): Promise<string> {
    const request = {
      source,
      outputBytes: this.#limits.outputBytes,
      defaults: defaults ?? {},
      t: this.#limits.compileTimeoutMs,
    };
    return this.#send("load", request, this.#limits.compileTimeoutMs + STARTUP_ALLOWANCE_MS);
  }

  call(method: GuestMethod, argJson: string | null, timeoutMs: number): Promise<string> {
    const arg = argJson === null ? null : (JSON.parse(argJson) as unknown);
    return this.#send(method, { m: method, a: arg, t: timeoutMs }, timeoutMs);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#child.kill("SIGKILL");
    this.#fail(coded("E_SANDBOX_DISPOSED", "the Python environment was disposed"));
  }

  #send(method: string, request: object, timeoutMs: number): Promise<string> {
    if (this.#disposed)
      return Promise.reject(
        coded(
          "E_SANDBOX_DISPOSED",
          "the Python environment is no longer usable (closed, or its process ended)",
        ),
      );
    if (this.#pending)
      return Promise.reject(
        coded("E_SANDBOX_DISPOSED", "a call is already running on this Python environment"),
      );
    this.#calledSinceCheck = true;
    if (this.#stopped) this.#hold(false);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => this.#kill("E_SANDBOX_TIMEOUT"),
        timeoutMs + WATCHDOG_GRACE_MS,
      );
      this.#pending = { method, resolve, reject, timer };
      this.#child.stdin?.write(`${JSON.stringify(request)}\n`);
    });
  }

  /** bwrap's status JSON; its `child-pid` is the interpreter (pid 1 of the jail, `--as-pid-1`). */
  #onInfo(chunk: string): void {
    if (this.#pid !== null || this.#info.length > 4096) return;
    this.#info += chunk;
    const match = /"child-pid"\s*:\s*(\d+)/.exec(this.#info);
    if (!match) return;
    this.#pid = Number(match[1]);
    this.#watchIdle();
  }

  /** Arms the idle check unless it is armed; it re-arms itself while calls keep coming. */
  #watchIdle(): void {
    if (this.#idleTimer !== null || this.#pid === null || this.#disposed) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (this.#pending) return; // the reply arms it again
      if (this.#calledSinceCheck) {
        this.#calledSinceCheck = false;
        this.#watchIdle();
      } else this.#hold(true);
    }, IDLE_STOP_MS);
    this.#idleTimer.unref();
  }

  /**
   * Stops (SIGSTOP) or continues (SIGCONT) the interpreter. Between calls no deadline runs, so a
   * guest that patched the runner to spin after answering burned a core until it was closed; a
   * stopped process cannot, and no signal handler or `setsid` of its own undoes SIGSTOP.
   */
  #hold(stop: boolean): void {
    if (this.#pid === null || this.#stopped === stop || this.#disposed) return;
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    try {
      process.kill(this.#pid, stop ? "SIGSTOP" : "SIGCONT");
      this.#stopped = stop;
    } catch {
      // The interpreter has already exited; its close event settles the call.
    }
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const newline = this.#buffer.indexOf("\n");
      if (newline < 0) break;
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#onLine(line);
    }
    if (Buffer.byteLength(this.#buffer, "utf8") > this.#limits.outputBytes + 16)
      this.#kill("E_SANDBOX_OUTPUT_SIZE");
  }

  #onLine(line: string): void {
    const pending = this.#pending;
    if (!pending) {
      this.#kill("E_ENV_CONTRACT");
      return;
    }
    this.#pending = null;
    clearTimeout(pending.timer);
    this.#watchIdle();
    if (line.startsWith("O")) {
      const json = line.slice(1);
      if (Buffer.byteLength(json, "utf8") > this.#limits.outputBytes) {
        this.#dispose();
        pending.reject(
          coded(
            "E_SANDBOX_OUTPUT_SIZE",
            `${pending.method}(): the answer is over the ${this.#limits.outputBytes}-byte limit`,
          ),
        );
        return;
      }
      try {
        JSON.parse(json);
      } catch {
        this.#dispose();
        pending.reject(
          coded(
            "E_ENV_CONTRACT",
            `${pending.method}(): the Python process answered text that is not JSON`,
          ),
        );
        return;
      }
      pending.resolve(json);
      return;
    }
    let failure: { kind?: unknown; message?: unknown } = {};
    try {
      failure = line.startsWith("E") ? (JSON.parse(line.slice(1)) as typeof failure) : {};
    } catch {
      failure = {};
    }
    const code = KIND_CODES[String(failure.kind)] ?? "E_SANDBOX_THROW";
    const message =
      typeof failure.message === "string"
        ? failure.message
        : "the sandbox answered something that is not its protocol";
    if (code === "E_SANDBOX_MEMORY" || pending.method === "load" || !line.startsWith("E"))
      this.#dispose();
    pending.reject(coded(code, `${pending.method}(): ${message}`));
  }

  #kill(reason: ErrorCode): void {
    if (this.#killedFor === null) this.#killedFor = reason;
    this.#child.kill("SIGKILL");
  }

  #dispose(): void {
    this.#disposed = true;
    this.#child.kill("SIGKILL");
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#disposed = true;
    const method = this.#pending?.method ?? "call";
    let error: SpadeError;
    if (this.#killedFor === "E_SANDBOX_TIMEOUT") {
      error = new SpadeError(
        "E_SANDBOX_TIMEOUT",
        `${method}(): the Python program ran past its deadline`,
        {
          nextStep: NEXT_STEPS.E_SANDBOX_TIMEOUT,
          cause: new WatchdogKill(WATCHDOG_GRACE_MS),
        },
      );
    } else if (code === DEADLINE_EXIT) {
      error = coded("E_SANDBOX_TIMEOUT", `${method}(): the Python program ran past its deadline`);
    } else if (this.#killedFor === "E_SANDBOX_OUTPUT_SIZE") {
      error = coded(
        "E_SANDBOX_OUTPUT_SIZE",
        `${method}(): the answer is over the ${this.#limits.outputBytes}-byte limit`,
      );
    } else if (this.#killedFor !== null) {
      error = coded(
        this.#killedFor,
        `${method}(): the Python process wrote outside its protocol and was stopped`,
      );
    } else if (signal !== null || (code !== null && code > 128)) {
      error = coded(
        "E_SANDBOX_MEMORY",
        `${method}(): the Python process died (${signal ?? `signal ${(code ?? 0) - 128}`}), out of memory or stack`,
      );
    } else if (method === "load" && code === 1 && this.#stderr.startsWith("bwrap")) {
      error = coded(
        "E_SANDBOX_UNAVAILABLE",
        `the Python sandbox could not start: ${this.#stderr.trim().slice(0, 300)}`,
      );
    } else {
      error = coded(
        "E_SANDBOX_THROW",
        `${method}(): the Python process exited with status ${code}`,
      );
    }
    this.#fail(error);
  }

  #fail(error: SpadeError): void {
    const pending = this.#pending;
    this.#pending = null;
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.reject(error);
  }
}

/**
 * A `SandboxBackend` that runs Python environment programs, each in its own jailed interpreter.
 * The host's bubblewrap and Python are looked up at the first `create` (E_SANDBOX_UNAVAILABLE
 * when missing or when the jail cannot start).
 */
export function createPythonBackend(options: PythonBackendOptions = {}): SandboxBackend {
  let tools: JailTools | null = null;
  return {
    name: "python",
    async create(source: string, limits: SandboxLimits): Promise<SandboxInstance> {
      tools ??= findJailTools(options);
      const instance = new PythonInstance(tools, limits);
      try {
        await instance.load(source, options.metaDefaults);
      } catch (err) {
        instance.dispose();
        throw err;
      }
      return instance;
    },
  };
}

/** The default Python backend (bwrap and python3 from PATH). */
export const pythonBackend: SandboxBackend = createPythonBackend();
