/**
 * @module sandbox
 * Public face of the sandbox: `loadProgram` turns an untrusted environment program into an `Env`
 * running in a hard-limited guest (isolated-vm isolates in sandbox processes by default, or
 * QuickJS in WebAssembly in worker threads). Guarantees and measured numbers are in the
 * backends' headers (isolated-vm.ts, quickjs.ts) and the prelude's (prelude.ts).
 */
import { SpadeError } from "../errors.js";
import { isolatedVmBackend } from "./isolated-vm.js";
import { ProgramEnv } from "./program-env.js";
import { pythonBackend } from "./python/index.js";
import { quickJsBackend } from "./quickjs.js";
import {
  DEFAULT_LIMITS,
  type ProgramLanguage,
  type SandboxBackend,
  type SandboxBackendName,
  type SandboxLimits,
  type SandboxRuntimeName,
} from "./types.js";

export { DEFAULT_LIMITS, ProgramEnv };
export { createIsolatedVmBackend, type IsolatedVmOptions } from "./isolated-vm.js";
export { createQuickJsBackend, type QuickJsOptions } from "./quickjs.js";
export type { PooledBackend } from "./host.js";
export type {
  GuestMethod,
  ProgramLanguage,
  SandboxBackend,
  SandboxBackendName,
  SandboxInstance,
  SandboxLimits,
  SandboxRuntimeName,
} from "./types.js";
export {
  createPythonBackend,
  detectProgramLanguage,
  PYTHON_ALLOWED_MODULES,
  programLanguageOfPath,
  type PythonBackendOptions,
  type PythonMetaDefaults,
} from "./python/index.js";
export { encodeFrame, FrameReader } from "./frames.js";
export { FIXED_TIME_MS } from "./prelude.js";
export { MAX_JSON_DEPTH } from "./shapes.js";

/** Every sandbox backend for JavaScript programs, the default first (`python` runs Python programs). */
export const SANDBOX_BACKENDS: readonly SandboxBackendName[] = Object.freeze([
  "isolated-vm",
  "quickjs",
]);

const BACKENDS: Record<SandboxRuntimeName, SandboxBackend> = {
  "isolated-vm": isolatedVmBackend,
  quickjs: quickJsBackend,
  python: pythonBackend,
};

/** Languages of environment programs, the default first. */
export const PROGRAM_LANGUAGES: readonly ProgramLanguage[] = Object.freeze([
  "javascript",
  "python",
]);

/** The backend called `name`; E_NOT_FOUND for an unknown name. */
export function getBackend(name: SandboxRuntimeName): SandboxBackend {
  const backend = Object.hasOwn(BACKENDS, name) ? BACKENDS[name] : undefined;
  if (!backend) {
    throw new SpadeError("E_NOT_FOUND", `unknown sandbox backend ${JSON.stringify(name)}`, {
      nextStep: `use one of ${SANDBOX_BACKENDS.join(", ")}`,
    });
  }
  return backend;
}

/** `DEFAULT_LIMITS` overridden by `overrides`; E_CONFIG when a value is not a positive number. */
export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits: SandboxLimits = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(overrides) as Array<[keyof SandboxLimits, unknown]>) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_LIMITS, key))
      throw new SpadeError("E_CONFIG", `unknown sandbox limit ${JSON.stringify(key)}`);
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new SpadeError(
        "E_CONFIG",
        `sandbox limit ${key} must be a positive number, got ${String(value)}`,
      );
    }
    limits[key] = value;
  }
  return limits;
}

/** Options of `loadProgram`. */
export interface LoadProgramOptions {
  /** Which backend runs a JavaScript program. Default `isolated-vm`. */
  backend?: SandboxBackendName;
  /** The program's language. Default `javascript`; `python` always runs on the `python` backend. */
  language?: ProgramLanguage;
  /** Overrides of `DEFAULT_LIMITS`. */
  limits?: Partial<SandboxLimits>;
}

/**
 * Compiles an environment program in a fresh guest and returns it as an `Env`.
 * Rejects with E_SANDBOX_OUTPUT_SIZE when the source is over `sourceBytes` (UTF-8), with
 * E_SANDBOX_COMPILE when it does not parse, its top level or constructor throws, or it defines no
 * `Environment` class, with E_SANDBOX_TIMEOUT / E_SANDBOX_MEMORY when loading runs past
 * `compileTimeoutMs` / `memoryBytes`, and with E_ENV_CONTRACT when `Environment.meta` has the wrong
 * shape. The caller owns the result and must `close()` it.
 */
export async function loadProgram(
  source: string,
  options: LoadProgramOptions = {},
): Promise<ProgramEnv> {
  const backend = getBackend(
    options.language === "python" ? "python" : (options.backend ?? "isolated-vm"),
  );
  const limits = resolveLimits(options.limits);
  if (typeof source !== "string")
    throw new SpadeError("E_CONFIG", "loadProgram: source must be a string");
  const bytes = Buffer.byteLength(source, "utf8");
  if (bytes > limits.sourceBytes) {
    throw new SpadeError(
      "E_SANDBOX_OUTPUT_SIZE",
      `the program is ${bytes} bytes, over the ${limits.sourceBytes}-byte limit`,
      {
        nextStep: "write a shorter program",
      },
    );
  }
  return ProgramEnv.create(backend, source, limits);
}
