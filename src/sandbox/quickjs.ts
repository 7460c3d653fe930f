/**
 * @module sandbox/quickjs
 * The portable backend: QuickJS compiled to WebAssembly (quickjs-emscripten-core 0.32.0 with the
 * release-sync wasm file), one WebAssembly instance per guest, the guests living in a small pool
 * of worker threads (quickjs-pool.ts, quickjs-worker.ts). Guarantees: the guest's whole world is
 * its own `WebAssembly.Memory` whose `maximum` is fixed (16 MiB base + `memoryBytes`), so it cannot
 * grow past that whatever QuickJS's allocator accounting says (its `setMemoryLimit` alone was
 * measured letting a shared module grow to 2 GiB); `setMemoryLimit` and a 256 KiB stack cap make
 * it fail early and cleanly ("out of memory" / "stack overflow"); every call runs under an
 * interrupt-handler deadline (uncatchable: `catch`/`finally` do not run; regular expressions are
 * interrupted too), backed by a host watchdog that terminates the worker 2 s past the deadline;
 * no host functions are exposed; pending promise jobs are never run, so `import()` and `.then`
 * callbacks never execute.
 * Why workers: the interrupt handler is polled between bytecodes, so time spent inside one native
 * operation is not cut: measured overshoots at a 16 MiB heap were ~1 s (recursion catching its
 * stack overflows) and ~1.6 s (a loop swallowing out-of-memory errors), and a generic array method
 * over `{length: 2 ** 40}` or a Proxy `ownKeys` check of 400k keys (29 s) ran for many seconds.
 * On the host's thread that blocked everything; in a worker the watchdog ends it.
 */
import { SpadeError } from "../errors.js";
import { REPLY_TAGS } from "./prelude.js";
import { clipGuestMessage, memoryError, opLabel, type GlueOp } from "./protocol.js";
import { type PooledBackend, pooledBackend, type ReplyReader } from "./host.js";
import { QuickJsPool, type QuickJsWorker } from "./quickjs-pool.js";
import type { QuickJsFail } from "./quickjs-worker.js";

/** The glue's reply for a thrown `null` (tag "E" + the description "null"). */
const THROWN_NULL = `${REPLY_TAGS.threw}null`;

/** The coded error of QuickJS's own failure reasons (host.ts reads the shared ones). */
function failureError(reply: { fail: QuickJsFail; text: string }, op: GlueOp): SpadeError {
  // A wasm trap or abort inside QuickJS: running out of wasm memory is the cause we know of.
  if (reply.fail === "crash") return memoryError(op, `the QuickJS runtime crashed: ${reply.text}`);
  return new SpadeError(
    "E_SANDBOX_THROW",
    `${opLabel(op)}: the QuickJS runtime failed: ${clipGuestMessage(reply.text)}`,
  );
}

/**
 * How QuickJS's replies read. A bare thrown `null` is QuickJS running out of memory while
 * building its own "out of memory" error; a program that throws null on purpose is classified
 * the same.
 */
const QUICKJS_READER: ReplyReader<QuickJsFail> = {
  failureError,
  fatalAnswer: (answer, op) =>
    answer === THROWN_NULL
      ? memoryError(
          op,
          "the guest threw null (QuickJS's sign of running out of memory while throwing)",
        )
      : null,
};

/** Options of `createQuickJsBackend`. */
export interface QuickJsOptions {
  /** Number of worker threads. Default: one per core, at most 4. */
  workers?: number;
}

/** A QuickJS backend with its own pool of worker threads (started on first use). */
export function createQuickJsBackend(options: QuickJsOptions = {}): PooledBackend {
  return pooledBackend({
    name: "quickjs",
    openPool: () => new QuickJsPool(options.workers),
    sendCreate: (runner: QuickJsWorker, fields, limits) =>
      runner.request(
        { ...fields, memoryBytes: limits.memoryBytes },
        "init",
        limits.compileTimeoutMs,
      ),
    reader: QUICKJS_READER,
  });
}

/** The default QuickJS backend (one shared pool of workers per host process). */
export const quickJsBackend = createQuickJsBackend();
