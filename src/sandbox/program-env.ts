/**
 * @module sandbox/program-env
 * `ProgramEnv`: an `Env` over one sandboxed environment program. It checks every answer strictly
 * (E_ENV_CONTRACT), gives each method its own deadline, and survives a broken guest: after a
 * timeout or memory error the program is recompiled in a fresh guest at the next `reset`.
 */
import type {
  Action,
  Env,
  EnvMeta,
  OracleTurnOutcome,
  ResetResult,
  StepResult,
} from "../env/types.js";
import { isSpadeError, SpadeError } from "../errors.js";
import { LostToAnotherGuest } from "./protocol.js";
import {
  parseGuestJson,
  toEnvMeta,
  toHint,
  toOracleAction,
  toResetResult,
  toStepResult,
} from "./shapes.js";
import type {
  GuestMethod,
  SandboxBackend,
  SandboxInstance,
  SandboxRuntimeName,
  SandboxLimits,
} from "./types.js";

/** An `Env` running a JavaScript environment program inside a sandbox backend. */
export class ProgramEnv implements Env {
  /** The program's `Environment.meta`, read once at load. */
  readonly meta: EnvMeta;
  /** Which sandbox backend runs the program. */
  readonly backend: SandboxRuntimeName;
  /** The limits every guest of this environment runs under. */
  readonly limits: Readonly<SandboxLimits>;
  /**
   * How many times a broken guest (timed out, out of memory, disposed) was replaced by a fresh
   * one. Replacement happens at the next `reset`, so a failed call is not followed by a
   * compile nobody asked for.
   */
  replacements = 0;

  #backend: SandboxBackend;
  #source: string;
  #instance: SandboxInstance;
  #episodeLive = false;
  #closed = false;
  /**
   * Calls run one at a time, in order: a replacement must not race a call on the old guest.
   * `#running` is true from a call's start until the last waiting call has been started.
   */
  #running = false;
  readonly #waiting: Array<() => void> = [];

  private constructor(
    backend: SandboxBackend,
    source: string,
    limits: SandboxLimits,
    instance: SandboxInstance,
    meta: EnvMeta,
  ) {
    this.#backend = backend;
    this.#source = source;
    this.limits = Object.freeze({ ...limits });
    this.#instance = instance;
    this.meta = meta;
    this.backend = backend.name;
  }

  /**
   * Compiles `source` in a fresh guest and reads `meta`; the guest is disposed if that fails.
   * Once more when another guest's crash ended the runner before this one's request ran: a good
   * program loaded beside a hostile one failed E_SANDBOX_DISPOSED (its validation E_COMPILE).
   */
  static async create(
    backend: SandboxBackend,
    source: string,
    limits: SandboxLimits,
  ): Promise<ProgramEnv> {
    try {
      return await ProgramEnv.#createOnce(backend, source, limits);
    } catch (err) {
      if (!lostToAnotherGuest(err)) throw err;
      return ProgramEnv.#createOnce(backend, source, limits);
    }
  }

  static async #createOnce(
    backend: SandboxBackend,
    source: string,
    limits: SandboxLimits,
  ): Promise<ProgramEnv> {
    const instance = await backend.create(source, limits);
    try {
      const json = await instance.call("meta", null, limits.compileTimeoutMs);
      const bytes = Buffer.byteLength(json, "utf8");
      if (bytes > limits.metaBytes) {
        throw new SpadeError(
          "E_ENV_CONTRACT",
          `Environment.meta is ${bytes} bytes of JSON, over the ${limits.metaBytes}-byte limit`,
          {
            nextStep: "keep meta small: a short description and compact tool schemas",
          },
        );
      }
      const meta = toEnvMeta(parseGuestJson(json, "Environment.meta"));
      return new ProgramEnv(backend, source, limits, instance, meta);
    } catch (err) {
      instance.dispose();
      throw err;
    }
  }

  /** Starts an episode. The seed must be a safe integer; it alone determines the episode. */
  reset(seed: number): Promise<ResetResult> {
    if (!Number.isSafeInteger(seed)) {
      return Promise.reject(
        new SpadeError("E_CONFIG", `reset(seed): seed must be a safe integer, got ${seed}`),
      );
    }
    return this.#serial(() => {
      this.#episodeLive = false;
      const reset = () =>
        this.#call("reset", JSON.stringify(seed), this.limits.resetTimeoutMs).then((answer) => {
          const result = toResetResult(answer);
          this.#episodeLive = true;
          return result;
        });
      return this.#instance.disposed ? this.#replace().then(reset) : reset();
    });
  }

  step(action: Action): Promise<StepResult> {
    return this.#serial(() => this.#stepResult(action));
  }

  #stepResult(action: Action): Promise<StepResult> {
    return this.#episodeCall("step", JSON.stringify(action), this.limits.stepTimeoutMs).then(
      (answer) => toStepResult(answer, action),
    );
  }

  hint(): Promise<string> {
    return this.#serial(() =>
      this.#episodeCall("hint", null, this.limits.hintTimeoutMs).then(toHint),
    );
  }

  solve(): Promise<Action> {
    return this.#serial(() => this.#solve());
  }

  #solve(): Promise<Action> {
    return this.#episodeCall("solve", null, this.limits.solveTimeoutMs).then(toOracleAction);
  }

  /**
   * `solve()` then `step()` with its action: one round trip where the backend can send both at
   * once (the JavaScript backends, for an oracle answering `{text}`), else two. Each call keeps
   * its own deadline and every answer gets the same checks as through `solve` and `step`.
   * Rejects with the solve's error; a failed step resolves with its error (`stepError`).
   */
  solveAndStep(): Promise<OracleTurnOutcome> {
    return this.#serial(() => {
      const turn = this.#episodeLive
        ? this.#instance.oracleTurn?.(this.limits.solveTimeoutMs, this.limits.stepTimeoutMs)
        : undefined;
      if (!turn) return this.#solve().then((action) => this.#turnOf(action));
      return turn.then(
        (replies) => {
          this.#afterCall();
          const action = toOracleAction(parseGuestJson(replies.solve, "solve()"));
          const step = replies.step;
          if (step === null) return this.#turnOf(action);
          if ("error" in step) return { action, stepError: step.error };
          try {
            return { action, result: toStepResult(parseGuestJson(step.json, "step()"), action) };
          } catch (stepError) {
            return { action, stepError };
          }
        },
        (err: unknown) => {
          this.#afterCall();
          throw err;
        },
      );
    });
  }

  /** The oracle's turn with `action` stepped in a request of its own. */
  #turnOf(action: Action): Promise<OracleTurnOutcome> {
    return this.#stepResult(action).then(
      (result) => ({ action, result }),
      (stepError: unknown) => ({ action, stepError }),
    );
  }

  /** Disposes the guest; every later call rejects with E_SANDBOX_DISPOSED. */
  close(): Promise<void> {
    this.#closed = true;
    this.#episodeLive = false;
    this.#instance.dispose();
    return Promise.resolve();
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `task` after the calls before it have settled (at once when none is running). */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    if (!this.#running) {
      this.#running = true;
      return this.#start(task);
    }
    return new Promise<void>((go) => this.#waiting.push(go)).then(() => this.#start(task));
  }

  #start<T>(task: () => Promise<T>): Promise<T> {
    let done: Promise<T>;
    try {
      done = this.#whileOpen(task);
    } catch (err) {
      done = Promise.reject(err);
    }
    done.then(this.#next, this.#next);
    return done;
  }

  /** Hands the turn to the oldest waiting call, or ends the busy spell. */
  readonly #next = (): void => {
    const go = this.#waiting.shift();
    if (go) go();
    else this.#running = false;
  };

  /** Runs `task` unless the environment was closed while it waited its turn. */
  #whileOpen<T>(task: () => Promise<T>): Promise<T> {
    if (!this.#closed) return task();
    throw new SpadeError("E_SANDBOX_DISPOSED", "the environment was closed", {
      nextStep: "load the program again",
    });
  }

  async #replace(): Promise<void> {
    this.#instance = await this.#backend.create(this.#source, this.limits).catch((err: unknown) => {
      if (!lostToAnotherGuest(err)) throw err;
      return this.#backend.create(this.#source, this.limits);
    });
    this.replacements++;
  }

  #episodeCall(method: GuestMethod, argJson: string | null, timeoutMs: number): Promise<unknown> {
    if (!this.#episodeLive) {
      return Promise.reject(
        new SpadeError("E_ENV_CONTRACT", `${method}() before reset(): call reset first`, {
          nextStep: "no episode is running (never started, or its guest failed and was discarded)",
        }),
      );
    }
    return this.#call(method, argJson, timeoutMs);
  }

  /** One guest call, its answer parsed; a guest left broken by it ends the episode. */
  #call(method: GuestMethod, argJson: string | null, timeoutMs: number): Promise<unknown> {
    return this.#instance.call(method, argJson, timeoutMs).then(
      (json) => {
        this.#afterCall();
        return parseGuestJson(json, `${method}()`);
      },
      (err: unknown) => {
        this.#afterCall();
        throw err;
      },
    );
  }

  #afterCall(): void {
    if (this.#instance.disposed) this.#episodeLive = false;
  }
}

/** True for the E_SANDBOX_DISPOSED of a request that never ran: another guest killed its runner. */
function lostToAnotherGuest(err: unknown): boolean {
  return isSpadeError(err, "E_SANDBOX_DISPOSED") && err.cause instanceof LostToAnotherGuest;
}
