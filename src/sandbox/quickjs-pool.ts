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
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
} from "node:worker_threads";
import { SpadeError } from "../errors.js";
import { PRELUDE_SOURCE } from "./prelude.js";
import type { DisposeRequest } from "./host.js";
import { PooledRunner, RunnerPool } from "./runner.js";
import { memoryError, opLabel, type GlueOp } from "./protocol.js";
import {
  CHANNEL_HEADER_BYTES,
  LANE_RING_BYTES,
  newChannelBuffer,
  SharedLane,
  TO_HOST,
  TO_WORKER,
} from "./shared-lane.js";
import {
  type QuickJsChannelData,
  QUICKJS_WORKER_SOURCE,
  type QuickJsReply,
  type QuickJsRequest,
  type QuickJsWorkerData,
} from "./quickjs-worker.js";

/** Extra time the host waits past a call's own deadline before it terminates the worker. */
export const QUICKJS_WATCHDOG_GRACE_MS = 2000;
/**
 * How long a worker that served one request spins on its lane for the next before it sleeps in
 * `Atomics.wait`, and how long the host spins for the reply after posting a worker's only pending
 * request (µs). A light call takes about 10 µs and the host's side of a step 20-30; waking a
 * sleeping thread costs more than both on these VMs. Spins that come up empty back off
 * (`SharedLane.spin`), so a loaded machine, where the other side has no core, soon stops spinning.
 */
const WORKER_SPIN_MICROS = 50;
const HOST_SPIN_MICROS = 30;
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

/**
 * One worker thread and the requests waiting on it (answered in order: it runs one at a time).
 * Requests and replies cross a shared-memory channel (shared-lane.ts), not `postMessage`: the
 * worker sleeps in `Atomics.wait` for the next request, and the host is woken for replies by
 * `Atomics.waitAsync`. A record a ring has no room for goes through a message port, in order.
 */
export class QuickJsWorker extends PooledRunner<Numbered, QuickJsReply> {
  readonly #worker: Worker;
  readonly #toWorker: SharedLane;
  readonly #toHost: SharedLane;
  #failure = "";

  constructor(data: QuickJsWorkerData) {
    super({ name: "the QuickJS worker", graceMs: QUICKJS_WATCHDOG_GRACE_MS });
    const channel = newChannelBuffer();
    const { port1, port2 } = new MessageChannel();
    const lane = (index: number, post: (text: string) => void, take: () => string | undefined) =>
      new SharedLane(channel, index, CHANNEL_HEADER_BYTES, LANE_RING_BYTES, post, take);
    this.#toWorker = lane(
      TO_WORKER,
      (text) => port1.postMessage(text),
      () => undefined,
    );
    this.#toHost = lane(
      TO_HOST,
      () => {},
      () => receiveMessageOnPort(port1)?.message as string,
    );
    const workerData: QuickJsWorkerData & QuickJsChannelData = {
      ...data,
      channel,
      port: port2 as MessagePort,
      spinMicros: WORKER_SPIN_MICROS,
    };
    this.#worker = new Worker(QUICKJS_WORKER_SOURCE, {
      eval: true,
      workerData,
      transferList: [port2],
      env: {},
    });
    this.#worker.on("error", (err) => {
      this.#failure = err.message;
    });
    this.#worker.on("exit", (code) => {
      // Replies written before the worker died settle their own requests first.
      this.#drain();
      this.exited(`exit code ${code}`);
      port1.close();
      this.#toHost.wakeAlways();
    });
    this.updateRef();
    this.#listen();
  }

  /**
   * Settles every reply waiting in the lane, then waits for the next one. Woken, it settles what
   * has come and waits again at the end of this turn, after the requests that those replies let
   * go on have been posted: replies that come meanwhile are read then, without a wake-up each.
   */
  #listen(): void {
    while (!this.dead) {
      this.#drain();
      const next = this.#toHost.waitAsync();
      if (next !== undefined) {
        void next.then(this.#woken);
        return;
      }
    }
  }

  readonly #woken = (): void => {
    this.#toHost.awake();
    this.#drain();
    setImmediate(() => this.#listen());
  };

  #drain(): void {
    for (let text = this.#toHost.receive(); text !== undefined; text = this.#toHost.receive())
      this.settle(JSON.parse(text) as QuickJsReply);
  }

  /** Terminates the worker; pending requests fail when it has exited. */
  kill(): void {
    if (!this.dead) void this.#worker.terminate();
  }

  protected post(message: Numbered | DisposeRequest | Array<Numbered | DisposeRequest>): void {
    if (Array.isArray(message)) for (const one of message) this.#toWorker.send(JSON.stringify(one));
    else this.#toWorker.send(JSON.stringify(message));
    this.#toWorker.wake();
    if (this.pending === 1 && this.#toHost.spin(HOST_SPIN_MICROS)) this.#drain();
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
