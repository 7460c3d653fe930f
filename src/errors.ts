/**
 * @module errors
 * The one error hierarchy of SPADE. Every error thrown on purpose carries a stable string code
 * (documented in docs/errors.md) and a message that says what to do next.
 */

/** Stable error codes. Never rename one: runs, tests and users match on them. */
export const ERROR_CODES = {
  /** A configuration value or command-line flag is invalid. */
  E_CONFIG: "invalid configuration or flag",
  /** A file could not be read or written. */
  E_IO: "file could not be read or written",
  /** An environment broke the contract (shape, bounds, call order). */
  E_ENV_CONTRACT: "environment broke the contract",
  /** A sandboxed program did not compile or does not define `Environment`. */
  E_SANDBOX_COMPILE: "program did not compile",
  /** A sandboxed call ran past its CPU deadline. */
  E_SANDBOX_TIMEOUT: "sandboxed call timed out",
  /** A sandboxed program ran past its memory cap (or its stack). */
  E_SANDBOX_MEMORY: "sandboxed program ran out of memory",
  /** A sandboxed call returned more bytes than allowed. */
  E_SANDBOX_OUTPUT_SIZE: "sandboxed call returned too much data",
  /** A sandboxed call threw an error inside the guest. */
  E_SANDBOX_THROW: "sandboxed program threw",
  /** A sandboxed instance was used after it was disposed or broken. */
  E_SANDBOX_DISPOSED: "sandboxed instance is no longer usable",
  /** An unknown sandbox backend or environment name. */
  E_NOT_FOUND: "not found",
  /** Text (a Python call string, a literal, a data file) could not be parsed. */
  E_PARSE: "text could not be parsed",
  /** The isolation a sandbox needs (e.g. a network namespace for Python) is not available. */
  E_SANDBOX_UNAVAILABLE: "sandbox isolation is not available",
  /** A model server answered with an HTTP error, or could not be reached, after retries. */
  E_POLICY_HTTP: "model server request failed",
  /** A model server did not answer within the per-request timeout, after retries. */
  E_POLICY_TIMEOUT: "model server request timed out",
  /** A model server failed many requests in a row (`--outage-after`): it is down or the URL, key or model is wrong; the work stopped with what was finished kept. */
  E_POLICY_UNAVAILABLE: "model server failed every recent request",
  /** A model answer could not be used (no choices, no sequence). */
  E_POLICY_OUTPUT: "model output was malformed",
  /** A model wrote a tool call that is not valid JSON (in self-play the turn is answered with an error and masked). */
  E_POLICY_TOOL_CALL: "model wrote a tool call that could not be parsed",
  /** A conversation outgrew the configured prompt-token budget. */
  E_POLICY_CONTEXT: "conversation exceeded the context budget",
  /** A conversation could not be rendered into tokens (chat template error, unusable tokenizer files). */
  E_POLICY_RENDER: "conversation could not be rendered into tokens",
  /** An optional dependency a feature needs (e.g. node-llama-cpp for local GGUF models) is not installed. */
  E_DEPENDENCY_MISSING: "an optional dependency is not installed",
  /** A model reference (`hf:...`, a URL) could not be downloaded. */
  E_MODEL_DOWNLOAD: "model could not be downloaded",
  /** A local model file exists but could not be loaded. */
  E_MODEL_LOAD: "model could not be loaded",
  /** Reward or advantage math was given unusable numbers (non-finite, out of range, empty). */
  E_RL_INPUT: "reward math received invalid numbers",
  /** A run folder is in use by another process (the message names its PID and host). */
  E_RUN_LOCKED: "run folder is in use by another process",
  /** A run's store file is damaged (truncated, overwritten) or is not a run store. */
  E_STORE_CORRUPT: "run store is damaged",
  /** The disk (or quota) is full; committed work is kept and the run can be resumed elsewhere. */
  E_DISK_FULL: "disk is full",
  /** Work was cancelled through an AbortSignal. */
  E_CANCELLED: "cancelled",
  /** tau2-bench's harness failed (crashed, could not load its tasks, or a simulation raised). */
  E_TAU2_HARNESS: "the tau2-bench harness failed",
  /** A helper process (e.g. the reasoning-gym worker) crashed, timed out or answered nonsense. */
  E_WORKER: "helper process failed",
  /** A dataset file could not be downloaded or failed its checksum (the message says which file to put where by hand). */
  E_DATA_FETCH: "dataset file could not be downloaded",
  /** A remote OpenEnv environment (`openenv+ws://...`) could not be reached or answered with an error. */
  E_REMOTE_ENV: "remote environment failed",
  /** A model file is larger than the memory of the machine that would load it. */
  E_MODEL_TOO_LARGE: "model is too large for this machine's memory",
  /** A child server SPADE starts (the local training engine) failed to start or died; the message carries its log tail. */
  E_ENGINE_START: "a local server failed to start or died",
  /** A TCP port SPADE was asked to listen on is taken by another process. */
  E_PORT_IN_USE: "port is already in use",
  /** Every session a server keeps open (the dashboard's Play games) is in use; the message says when to try again. */
  E_CAPACITY: "every session is in use",
} as const;

/** One of the stable error codes. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The base of every error SPADE throws on purpose. */
export class SpadeError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** What the user can do about it, when something useful can be said. */
  readonly nextStep: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { nextStep?: string; cause?: unknown } = {},
  ) {
    super(options.nextStep ? `${message} (${options.nextStep})` : message, {
      cause: options.cause,
    });
    this.name = "SpadeError";
    this.code = code;
    this.nextStep = options.nextStep;
  }
}

/**
 * The `cause` of an E_SANDBOX_TIMEOUT whose call the host's watchdog had to end: the guest ran on
 * in native code its deadline does not interrupt (`indexOf` over `{length: 2 ** 40}`), so the call
 * cost its deadline plus the watchdog's grace. The validator stops at the first one.
 */
export class WatchdogKill extends Error {
  constructor(readonly graceMs: number) {
    super(`the host's watchdog ended the call ${graceMs} ms past its deadline`);
    this.name = "WatchdogKill";
  }
}

/** True when `err` is a SpadeError, optionally with the given code. */
export function isSpadeError(err: unknown, code?: ErrorCode): err is SpadeError {
  return err instanceof SpadeError && (code === undefined || err.code === code);
}

/** A short description of any thrown value, for recording failures as data. */
export function describeError(err: unknown): string {
  if (err instanceof SpadeError) return `${err.code}: ${err.message}`;
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * `io()`'s result; whatever it throws (or, for a promise, rejects with) becomes E_IO with
 * `message` and `nextStep`, the failure kept as the cause. For reads whose every failure is the
 * file's: the path, its permissions, a file that went away.
 */
export function orIoError<T>(io: () => T, message: string, nextStep: string): T {
  const fail = (cause: unknown): never => {
    throw new SpadeError("E_IO", message, { cause, nextStep });
  };
  try {
    const result = io();
    return (result instanceof Promise ? result.catch(fail) : result) as T;
  } catch (cause) {
    return fail(cause);
  }
}
