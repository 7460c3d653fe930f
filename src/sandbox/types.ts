/**
 * @module sandbox/types
 * The `Sandbox` interface: running one untrusted environment program with hard limits.
 * Backends (isolated-vm, QuickJS) implement `SandboxBackend`; `ProgramEnv` turns an instance
 * into an `Env`.
 */

/** Hard limits for one environment instance. */
export interface SandboxLimits {
  /** Guest heap cap. Default 64 MiB. */
  memoryBytes: number;
  /** CPU deadline for compiling the program and reading `meta`. Default 1000 ms. */
  compileTimeoutMs: number;
  /** CPU deadline for `reset(seed)`. Default 500 ms. */
  resetTimeoutMs: number;
  /** CPU deadline for `step(action)`. Default 200 ms. */
  stepTimeoutMs: number;
  /** CPU deadline for `hint()`. Default 200 ms. */
  hintTimeoutMs: number;
  /** CPU deadline for `solve()`. Default 200 ms. */
  solveTimeoutMs: number;
  /** Largest JSON answer of one call, in bytes (UTF-8). Default 1 MiB. */
  outputBytes: number;
  /** Largest accepted program source, in bytes. Default 256 KiB. */
  sourceBytes: number;
  /**
   * Largest `Environment.meta`, in bytes of JSON (UTF-8). Default 64 KiB. Meta (tool schemas
   * included) is kept for the whole run and sent in every agent prompt, so it is bounded apart.
   */
  metaBytes: number;
}

/** The defaults of `SandboxLimits`. */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryBytes: 64 * 1024 * 1024,
  compileTimeoutMs: 1000,
  resetTimeoutMs: 500,
  stepTimeoutMs: 200,
  hintTimeoutMs: 200,
  solveTimeoutMs: 200,
  outputBytes: 1024 * 1024,
  sourceBytes: 256 * 1024,
  metaBytes: 64 * 1024,
});

/** Names of the sandbox backends for JavaScript programs. `isolated-vm` is the default. */
export type SandboxBackendName = "isolated-vm" | "quickjs";

/** Names of every sandbox backend: the JavaScript ones and `python` (src/sandbox/python/). */
export type SandboxRuntimeName = SandboxBackendName | "python";

/** The languages environment programs are written in. */
export type ProgramLanguage = "javascript" | "python";

/** The guest methods the host may call. */
export type GuestMethod = "meta" | "reset" | "step" | "hint" | "solve";

/**
 * One live guest: its own isolate/runtime holding one `Environment` instance.
 * `call` passes a JSON string in and gets the JSON string the guest produced back; it rejects
 * with a coded `SpadeError` (E_SANDBOX_TIMEOUT, E_SANDBOX_MEMORY, E_SANDBOX_OUTPUT_SIZE,
 * E_SANDBOX_THROW, E_SANDBOX_DISPOSED). After a timeout or memory error the instance is
 * disposed and every later call rejects with E_SANDBOX_DISPOSED.
 */
export interface SandboxInstance {
  call(method: GuestMethod, argJson: string | null, timeoutMs: number): Promise<string>;
  /**
   * Optional: `solve()` and `step(the oracle's action)` in one round trip, each call under its
   * own deadline, in the order `call("solve")` then `call("step", action)` would run them. Rejects
   * as `call("solve")` would; `step` is null when the step was not run (an answer off the
   * runner's fast path): the caller checks the solve's answer and sends the step itself.
   */
  oracleTurn?(solveTimeoutMs: number, stepTimeoutMs: number): Promise<OracleReplies>;
  /** True once disposed (explicitly or after a fatal error). */
  readonly disposed: boolean;
  dispose(): void;
}

/** What `SandboxInstance.oracleTurn` answers: the solve's JSON, and the step's outcome if it ran. */
export interface OracleReplies {
  solve: string;
  step: { json: string } | { error: unknown } | null;
}

/** A sandbox implementation. */
export interface SandboxBackend {
  readonly name: SandboxRuntimeName;
  /**
   * Compiles `source` in a fresh guest and instantiates `Environment`.
   * Rejects with E_SANDBOX_COMPILE (or a limit code) when that fails.
   */
  create(source: string, limits: SandboxLimits): Promise<SandboxInstance>;
}
