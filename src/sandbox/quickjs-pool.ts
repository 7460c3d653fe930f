/**
 * @module sandbox/quickjs-pool
 * The worker threads that host QuickJS guests. A guest stuck in native code past its deadline
 * gets its worker terminated, never the host: the call fails E_SANDBOX_TIMEOUT, the other guests
 * that worker held become disposed, and the pool starts a fresh worker on demand.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { SpadeError } from "../errors.js";
import { PRELUDE_SOURCE } from "./prelude.js";
import type { DisposeRequest } from "./host.js";
import { PooledRunner, RunnerPool } from "./runner.js";
import { memoryError, opLabel, type GlueOp } from "./protocol.js";
import {
  QUICKJS_WORKER_SOURCE,
  type QuickJsReply,
  type QuickJsRequest,
  type QuickJsWorkerData,
} from "./quickjs-worker.js";

/** Extra time the host waits past a call's own deadline before it terminates the worker. */
export const QUICKJS_WATCHDOG_GRACE_MS = 2000;
/** QuickJS stack cap: deep recursion ends with "stack overflow", not a wasm trap. */
const MAX_STACK_BYTES = 256 * 1024;

type Numbered = Extract<QuickJsRequest, { id: number }>;

let workerData: Promise<QuickJsWorkerData> | undefined;

/** The WebAssembly global, typed here (opaquely) because the project's `lib` declares none. */
const wasmApi = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }
).WebAssembly;

/**
 * The file URL of a package's ESM entry (both packages ship `dist/index.mjs` beside the CommonJS
 * `dist/index.js` that require.resolve finds). The ESM builds are what the backend always loaded
 * and were measured to honour the fixed `WebAssembly.Memory`; loaded through the CommonJS entries
 * a guest grew past it (1 GB).
 */
function esmEntry(require: NodeJS.Require, name: string): string {
  const path = require.resolve(name).replace(/\.js$/, ".mjs");
  if (!existsSync(path)) throw new Error(`no ESM entry ${path}`);
  return pathToFileURL(path).href;
}

/**
 * What every worker starts with: where the library is (an evaluated worker has no module path)
 * and QuickJS's wasm, compiled once per process.
 */
export function quickJsWorkerData(): Promise<QuickJsWorkerData> {
  workerData ??= (async () => {
    let paths: { coreUrl: string; variantUrl: string; wasmPath: string };
    try {
      const require = createRequire(import.meta.url);
      paths = {
        coreUrl: esmEntry(require, "quickjs-emscripten-core"),
        variantUrl: esmEntry(require, "@jitl/quickjs-wasmfile-release-sync"),
        wasmPath: require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"),
      };
    } catch (err) {
      throw new SpadeError("E_CONFIG", "the QuickJS packages are not installed", {
        nextStep: "npm install, or use the isolated-vm backend",
        cause: err,
      });
    }
    const wasmModule = await wasmApi.compile(await readFile(paths.wasmPath));
    return {
      coreUrl: paths.coreUrl,
      variantUrl: paths.variantUrl,
      wasmModule,
      prelude: PRELUDE_SOURCE,
      stackBytes: MAX_STACK_BYTES,
    };
  })();
  workerData.catch(() => {
    workerData = undefined;
  });
  return workerData;
}

/** One worker thread and the requests waiting on it (answered in order: it runs one at a time). */
export class QuickJsWorker extends PooledRunner<Numbered, QuickJsReply> {
  readonly #worker: Worker;
  #failure = "";

  constructor(data: QuickJsWorkerData) {
    super({ name: "the QuickJS worker", graceMs: QUICKJS_WATCHDOG_GRACE_MS });
    this.#worker = new Worker(QUICKJS_WORKER_SOURCE, { eval: true, workerData: data, env: {} });
    this.#worker.on("message", (reply: QuickJsReply) => this.settle(reply));
    this.#worker.on("error", (err) => {
      this.#failure = err.message;
    });
    this.#worker.on("exit", (code) => this.exited(`exit code ${code}`));
    this.updateRef();
  }

  /** Terminates the worker; pending requests fail when it has exited. */
  kill(): void {
    if (!this.dead) void this.#worker.terminate();
  }

  protected post(message: Numbered | DisposeRequest | Array<Numbered | DisposeRequest>): void {
    this.#worker.postMessage(message);
  }

  protected goneError(op: GlueOp): SpadeError {
    return new SpadeError(
      "E_SANDBOX_DISPOSED",
      `${opLabel(op)}: the QuickJS worker had already exited`,
    );
  }

  protected deathError(op: GlueOp, why: string): SpadeError {
    return memoryError(
      op,
      `the QuickJS worker died (${why}${this.#failure ? `: ${this.#failure}` : ""})`,
    );
  }

  protected setRef(busy: boolean): void {
    if (busy) this.#worker.ref();
    else this.#worker.unref();
  }
}

/** A fixed-size set of QuickJS workers; guests go to the least loaded one. */
export class QuickJsPool extends RunnerPool<QuickJsWorker> {
  constructor(size: number = Math.max(1, Math.min(4, availableParallelism()))) {
    super(size, "QuickJS worker count");
  }

  /** A live worker for a new guest, starting one while the pool is under its size. */
  async acquire(): Promise<QuickJsWorker> {
    const data = await quickJsWorkerData();
    return this.place(() => new QuickJsWorker(data));
  }
}
