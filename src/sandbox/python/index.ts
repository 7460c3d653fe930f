/**
 * @module sandbox/python
 * Public face of the Python backend: Python environment programs (the reference's format) run in
 * jailed CPython processes behind the same `SandboxBackend` interface as the JavaScript backends.
 */
export {
  createPythonBackend,
  pythonBackend,
  WATCHDOG_GRACE_MS,
  type PythonBackendOptions,
  type PythonMetaDefaults,
} from "./backend.js";
export { findJailTools, type JailTools } from "./jail.js";
export { PYTHON_ALLOWED_MODULES } from "./runner.js";
export { buildSeccompFilter, DENIED_SYSCALLS } from "./seccomp.js";

/** The language of a program file by its extension: `.py` is Python, anything else JavaScript. */
export function programLanguageOfPath(path: string): "javascript" | "python" {
  return path.toLowerCase().endsWith(".py") ? "python" : "javascript";
}

/** The language of a program's source (defined with the environment contract: the store uses it too). */
export { detectProgramLanguage } from "../../env/language.js";
