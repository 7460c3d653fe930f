/**
 * @module eval/suites/code/testing/sandbox-probe
 * Whether the Python sandbox can run on this machine, as a skip reason for test/missing.ts.
 */
import { PythonSandbox } from "../python-sandbox.js";

/**
 * Null when `probe` (what `PythonSandbox.create(...)` gave, or the error it threw) is a sandbox,
 * else why the sandbox cannot run here (it needs root or unprivileged user namespaces).
 */
export function sandboxMissing(probe: unknown): string | null {
  if (probe instanceof PythonSandbox) return null;
  const why = probe instanceof Error ? probe.message : String(probe);
  return `the Python sandbox cannot run on this machine: ${why}`;
}
