/**
 * @module sandbox/isolated-vm
 * The default backend: one V8 isolate (isolated-vm 5.0.4) per guest, the isolates living in a
 * small pool of sandbox processes (see ivm-pool.ts). Guarantees: a separate heap capped by
 * `memoryBytes` (isolated-vm's cap is soft: its README says a determined attacker can use 2-3x
 * before termination; going over disposes the isolate); every call runs under a deadline that
 * terminates the guest (uncatchable: `catch`/`finally` do not run; regular expressions and
 * microtask floods are stopped too), backed by a host watchdog that kills the process 2 s later;
 * no host objects in the guest; `WebAssembly`, `SharedArrayBuffer`, `Atomics`, `Proxy` and timers
 * are deleted and resizable `ArrayBuffer`s refused by the prelude (their memory escapes the cap);
 * each sandbox process has a hard data ceiling (RLIMIT_DATA, ivm-pool.ts) and an empty environment; dynamic `import()` rejects ("Not supported"); the guest's `Function`
 * constructor reaches only the guest's own global.
 * Why processes: V8 aborts the whole process on some out-of-memory paths that isolated-vm cannot
 * turn into an error (measured with a 16 MiB isolate: adding properties to one object in a loop,
 * `new Array(5e7).fill(0)`, flattening a doubled string); in-process, one such program would kill
 * the trainer. Cost, measured on 2 shared cores: in-process `applySync` did ~330k trivial calls/s;
 * through the processes one episode does ~21k echo steps/s and 16 concurrent episodes ~40k/s in
 * total (QuickJS in worker threads: see docs/sandbox.md); loading a program takes ~3 ms. The upside
 * beyond safety: a spinning guest never blocks the host's event loop.
 */
import { SpadeError } from "../errors.js";
import { type PooledBackend, pooledBackend, type ReplyReader } from "./host.js";
import type { IvmFail } from "./ivm-child.js";
import { IvmPool, type IvmProcess } from "./ivm-pool.js";
import { clipGuestMessage, opLabel, type GlueOp } from "./protocol.js";

const MIB = 1024 * 1024;
/** isolated-vm refuses limits under 8 MB. */
const MIN_ISOLATE_MIB = 8;

/** The coded error of isolated-vm's own failure reasons (host.ts reads the shared ones). */
function failureError(reply: { fail: IvmFail; text: string }, op: GlueOp): SpadeError {
  if (reply.fail === "rejected")
    return new SpadeError(
      "E_SANDBOX_THROW",
      `${opLabel(op)} left a promise rejection unhandled: ${clipGuestMessage(reply.text)}`,
    );
  return new SpadeError("E_SANDBOX_THROW", `${op}: the isolate failed: ${reply.text}`);
}

/** How isolated-vm's replies read: an unhandled rejection fails the call but keeps the guest. */
const IVM_READER: ReplyReader<IvmFail> = {
  failureError,
  keepsGuest: (fail) => fail === "rejected",
};

/** Options of `createIsolatedVmBackend`. */
export interface IsolatedVmOptions {
  /** Number of sandbox processes. Default: one per core, at most 4. */
  processes?: number;
  /**
   * Ceiling on each sandbox process's data memory (RLIMIT_DATA), shared by the guests it holds.
   * Default 2 GiB (`DEFAULT_PROCESS_MEMORY_BYTES`); at least 256 MiB.
   */
  processMemoryBytes?: number;
}

/** An isolated-vm backend with its own pool of sandbox processes (started on first use). */
export function createIsolatedVmBackend(options: IsolatedVmOptions = {}): PooledBackend {
  return pooledBackend({
    name: "isolated-vm",
    openPool: () => new IvmPool(options.processes, options.processMemoryBytes),
    sendCreate: (runner: IvmProcess, fields, limits) => {
      const memoryMiB = Math.max(MIN_ISOLATE_MIB, Math.ceil(limits.memoryBytes / MIB));
      return runner.request({ ...fields, memoryMiB }, "init", limits.compileTimeoutMs);
    },
    reader: IVM_READER,
  });
}

/** The default isolated-vm backend (one shared pool per host process). */
export const isolatedVmBackend = createIsolatedVmBackend();
