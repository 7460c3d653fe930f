/**
 * @module sandbox/host
 * What the two JavaScript backends share on the host side: the messages to the process or
 * worker that runs guests, and the guest instance that settles its replies, the oracle's
 * solve-and-step turn included. How requests reach a runner and wait on it is runner-queue.ts;
 * how a runner starts and dies is runner.ts. The backends keep only what differs: their
 * processes or workers, and how their failure replies read.
 */
import type { SpadeError } from "../errors.js";
import {
  asLoadError,
  checkTimeoutMs,
  compileError,
  decodeReply,
  disposedError,
  memoryError,
  timeoutError,
  type GlueOp,
} from "./protocol.js";
import type {
  GuestMethod,
  SandboxBackend,
  SandboxInstance,
  OracleReplies,
  SandboxLimits,
  SandboxRuntimeName,
} from "./types.js";
import type { Unnumbered } from "./runner-queue.js";

/** Host -> runner: one glue call on guest `iid`. */
export interface CallRequest {
  t: "call";
  id: number;
  iid: number;
  op: string;
  arg: string | null;
  maxChars: number;
  timeoutMs: number;
  /**
   * On a `solve` call: then also run `step` under this deadline with the oracle action the
   * runner makes of the solve's answer (`oracleStepArg`), so the oracle's turn crosses the
   * boundary in one round trip; its outcome comes back in the reply's `step`.
   */
  thenStepMs?: number;
}

/** The outcome of one glue call in a runner: its tagged reply, or why there is none. */
export type CallOutcome<Fail extends string> = { reply: unknown } | { fail: Fail; text: string };

/** Host -> runner: drop guest `iid` (no answer). */
export interface DisposeRequest {
  t: "dispose";
  iid: number;
}

/**
 * Runner -> host: the glue's tagged reply, or why there is none (`Fail` names the backend's
 * reasons). After `thenStepMs`, `step` is the step's outcome, absent when the step did not run
 * (the solve failed, or its answer was off `oracleStepArg`'s fast path).
 */
export type RunnerReply<Fail extends string> =
  | { id: number; reply: unknown; step?: CallOutcome<Fail> }
  | { id: number; fail: Fail; text: string };

/** What a guest instance needs of the process or worker that runs it. */
export interface GuestRunner<Reply> {
  readonly dead: boolean;
  /**
   * Guests placed here and not yet disposed (for placement): the pool counts a guest when it
   * places it, before its create is answered, so guests loaded at once spread over the pool.
   */
  liveInstances: number;
  /** Sends a call (posted at the end of this turn, see `Outbox`) and waits for its answer. */
  request(message: Unnumbered<CallRequest>, op: GlueOp, timeoutMs: number): Promise<Reply>;
  notify(message: DisposeRequest): void;
}

/** The coded error of a failure both runners report alike, or null for a backend's own reason. */
function sharedFailureError(
  reply: { fail: string; text: string },
  op: GlueOp,
  timeoutMs: number,
): SpadeError | null {
  switch (reply.fail) {
    case "timeout":
      return timeoutError(op, timeoutMs);
    case "memory":
      return memoryError(op, reply.text);
    case "compile":
      return compileError(reply.text);
    case "disposed":
      return disposedError(op);
    default:
      return null;
  }
}

/** How a backend reads its runner's replies. */
export interface ReplyReader<Fail extends string> {
  /** The coded error of a failure other than timeout, memory, compile or disposed. */
  failureError(reply: { fail: Fail; text: string }, op: GlueOp): SpadeError;
  /** Whether a failure leaves the guest usable (isolated-vm: an unhandled rejection). Default: no. */
  keepsGuest?(fail: Fail): boolean;
  /** A glue answer that is itself fatal (QuickJS: a thrown null), or null. */
  fatalAnswer?(answer: unknown, op: GlueOp): SpadeError | null;
}

let nextInstanceId = 1;

/** A fresh guest id, unique in this host process. */
export function newGuestId(): number {
  return nextInstanceId++;
}

/** One guest in a runner, holding one `Environment` instance. */
export class GuestInstance<Fail extends string> implements SandboxInstance {
  readonly #runner: GuestRunner<RunnerReply<Fail>>;
  readonly #iid: number;
  readonly #outputBytes: number;
  readonly #reader: ReplyReader<Fail>;
  #disposed = false;

  constructor(
    runner: GuestRunner<RunnerReply<Fail>>,
    iid: number,
    outputBytes: number,
    reader: ReplyReader<Fail>,
  ) {
    this.#runner = runner;
    this.#iid = iid;
    this.#outputBytes = outputBytes;
    this.#reader = reader;
  }

  get disposed(): boolean {
    return this.#disposed || this.#runner.dead;
  }

  call(method: GuestMethod, argJson: string | null, timeoutMs: number): Promise<string> {
    return this.invoke(method, argJson, timeoutMs);
  }

  /**
   * `solve()` and, in the same request, `step()` with the oracle action the runner made of the
   * solve's answer (`oracleStepArg`). Each call runs under its own deadline in the runner; the
   * watchdog allows their sum. Rejects with the solve's error; `step` is null when the runner did
   * not run the step, else the step's JSON answer or its error.
   */
  oracleTurn(solveTimeoutMs: number, stepTimeoutMs: number): Promise<OracleReplies> {
    try {
      checkTimeoutMs(stepTimeoutMs);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#request("solve", null, solveTimeoutMs, stepTimeoutMs).then((reply) => {
      const solve = this.settle(reply, "solve", solveTimeoutMs);
      if (!("reply" in reply) || reply.step === undefined) return { solve, step: null };
      try {
        return { solve, step: { json: this.settle(reply.step, "step", stepTimeoutMs) } };
      } catch (error) {
        return { solve, step: { error } };
      }
    });
  }

  /** One glue call; any fatal outcome disposes the guest before the promise rejects. */
  invoke(op: GlueOp, argJson: string | null, timeoutMs: number): Promise<string> {
    return this.#request(op, argJson, timeoutMs).then((reply) => this.settle(reply, op, timeoutMs));
  }

  /**
   * Sends one call (with `thenStepMs`, a solve and its step) and waits for the runner's reply; a
   * runner that fails it (died, killed by the watchdog) leaves this guest disposed.
   */
  #request(
    op: GlueOp,
    argJson: string | null,
    timeoutMs: number,
    thenStepMs?: number,
  ): Promise<RunnerReply<Fail>> {
    if (this.disposed) return Promise.reject(disposedError(op));
    try {
      checkTimeoutMs(timeoutMs);
    } catch (err) {
      return Promise.reject(err);
    }
    const message: Unnumbered<CallRequest> = {
      t: "call",
      iid: this.#iid,
      op,
      arg: argJson,
      maxChars: this.#outputBytes,
      timeoutMs,
    };
    if (thenStepMs !== undefined) message.thenStepMs = thenStepMs;
    return this.#runner
      .request(message, thenStepMs === undefined ? op : "solve+step", timeoutMs + (thenStepMs ?? 0))
      .then(undefined, (err: unknown) => {
        this.dispose();
        throw err;
      });
  }

  /** Turns a runner reply into JSON text or a coded error (disposing the guest when fatal). */
  settle(reply: RunnerReply<Fail> | CallOutcome<Fail>, op: GlueOp, timeoutMs: number): string {
    if ("fail" in reply) {
      if (!this.#reader.keepsGuest?.(reply.fail)) this.dispose();
      throw sharedFailureError(reply, op, timeoutMs) ?? this.#reader.failureError(reply, op);
    }
    const fatal = this.#reader.fatalAnswer?.(reply.reply, op) ?? null;
    if (fatal !== null) {
      this.dispose();
      throw fatal;
    }
    const decoded = decodeReply(reply.reply, op, this.#outputBytes, timeoutMs);
    if (decoded.ok) return decoded.json;
    if (decoded.fatal) this.dispose();
    throw decoded.error;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#runner.liveInstances--;
    this.#runner.notify({ t: "dispose", iid: this.#iid });
  }
}

/**
 * The guest a create request made: its reply settled as the `init` call, a failure disposing the
 * guest and becoming a load error (E_SANDBOX_COMPILE stays; anything else is reported as loading).
 */
export async function loadGuest<Fail extends string>(
  runner: GuestRunner<RunnerReply<Fail>>,
  iid: number,
  created: Promise<RunnerReply<Fail>>,
  limits: Pick<SandboxLimits, "outputBytes" | "compileTimeoutMs">,
  reader: ReplyReader<Fail>,
): Promise<GuestInstance<Fail>> {
  let reply: RunnerReply<Fail>;
  try {
    reply = await created;
  } catch (err) {
    runner.liveInstances--;
    throw err;
  }
  const instance = new GuestInstance(runner, iid, limits.outputBytes, reader);
  try {
    instance.settle(reply, "init", limits.compileTimeoutMs);
  } catch (err) {
    instance.dispose();
    throw asLoadError(err);
  }
  return instance;
}

/** The fields of a create request both runners read; each backend adds its memory field. */
export interface CreateFields {
  t: "create";
  iid: number;
  source: string;
  timeoutMs: number;
  maxChars: number;
}

/** A backend that owns a pool: `close` stops it (a later `create` starts a new one). */
export type PooledBackend = SandboxBackend & { close(): void };

/** What differs between the two pooled JavaScript backends (see `pooledBackend`). */
export interface PooledBackendSpec<
  Fail extends string,
  Runner extends GuestRunner<RunnerReply<Fail>>,
> {
  name: SandboxRuntimeName;
  /** Starts the backend's pool (on the first `create`). */
  openPool(): { acquire(): Runner | Promise<Runner>; close(): void };
  /** Sends the create request (`fields` plus the backend's memory field) and returns its reply. */
  sendCreate(
    runner: Runner,
    fields: CreateFields,
    limits: SandboxLimits,
  ): Promise<RunnerReply<Fail>>;
  reader: ReplyReader<Fail>;
}

/**
 * A backend whose guests live in a pool of processes or workers started on first use: each
 * `create` takes a runner from the pool, sends the create request and loads the guest;
 * `close` stops the pool (a later `create` starts a new one).
 */
export function pooledBackend<Fail extends string, Runner extends GuestRunner<RunnerReply<Fail>>>(
  spec: PooledBackendSpec<Fail, Runner>,
): PooledBackend {
  let pool: ReturnType<PooledBackendSpec<Fail, Runner>["openPool"]> | undefined;
  return {
    name: spec.name,
    async create(source: string, limits: SandboxLimits): Promise<SandboxInstance> {
      pool ??= spec.openPool();
      const runner = await pool.acquire();
      const iid = newGuestId();
      const fields: CreateFields = {
        t: "create",
        iid,
        source,
        timeoutMs: limits.compileTimeoutMs,
        maxChars: limits.outputBytes,
      };
      return loadGuest(runner, iid, spec.sendCreate(runner, fields, limits), limits, spec.reader);
    },
    close(): void {
      pool?.close();
      pool = undefined;
    },
  };
}
