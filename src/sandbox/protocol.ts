/**
 * @module sandbox/protocol
 * Host side of the glue protocol shared by the backends: turns the tagged string the guest glue
 * returns into JSON text or a coded `SpadeError`, and builds the errors both backends raise.
 */
import { isSpadeError, SpadeError, WatchdogKill } from "../errors.js";
import { GUEST_MESSAGE_CHARS, REPLY_TAGS } from "./prelude.js";
import type { GuestMethod } from "./types.js";

/**
 * What the host asks the glue to do: a guest method, `init` (instantiate `Environment`), or
 * `solve+step` (the oracle's turn in one request: a solve and the step with its action).
 */
export type GlueOp = GuestMethod | "init" | "solve+step";

/** One decoded glue reply. A `fatal` error leaves the guest unusable: the backend disposes it. */
export type DecodedReply =
  | { ok: true; json: string }
  | { ok: false; error: SpadeError; fatal: boolean };

/** How an operation is named in messages. */
export function opLabel(op: GlueOp): string {
  if (op === "meta") return "Environment.meta";
  if (op === "init") return "new Environment()";
  if (op === "solve+step") return "solve() then step()";
  return `${op}()`;
}

/** Cuts a message coming from the guest to GUEST_MESSAGE_CHARS characters. */
export function clipGuestMessage(message: string): string {
  return message.length > GUEST_MESSAGE_CHARS
    ? `${message.slice(0, GUEST_MESSAGE_CHARS)}...`
    : message;
}

/**
 * Decodes what the glue returned (`timeoutMs`, the call's deadline, is named in a timeout). The
 * glue's own length check counts UTF-16 units, which never
 * exceed UTF-8 bytes, so it only stops answers that are certainly too large; the exact UTF-8
 * count is checked here.
 */
export function decodeReply(
  reply: unknown,
  op: GlueOp,
  outputBytes: number,
  timeoutMs = 0,
): DecodedReply {
  if (typeof reply !== "string" || reply.length === 0) {
    const error = new SpadeError(
      "E_SANDBOX_THROW",
      `${opLabel(op)}: the guest glue returned no reply`,
    );
    return { ok: false, error, fatal: true };
  }
  const tag = reply[0];
  const payload = reply.slice(1);
  switch (tag) {
    case REPLY_TAGS.ok: {
      // A UTF-16 unit is at most 3 bytes of UTF-8: short answers need no count.
      if (payload.length * 3 <= outputBytes) return { ok: true, json: payload };
      const bytes = Buffer.byteLength(payload, "utf8");
      if (bytes > outputBytes)
        return { ok: false, error: outputSizeError(op, bytes, outputBytes), fatal: false };
      return { ok: true, json: payload };
    }
    case REPLY_TAGS.threw:
      return {
        ok: false,
        error: new SpadeError(
          "E_SANDBOX_THROW",
          `${opLabel(op)} threw: ${clipGuestMessage(payload)}`,
        ),
        fatal: false,
      };
    case REPLY_TAGS.memory:
      return { ok: false, error: memoryError(op, payload), fatal: true };
    case REPLY_TAGS.interrupted:
      return { ok: false, error: timeoutError(op, timeoutMs), fatal: true };
    case REPLY_TAGS.promise:
      return {
        ok: false,
        error: new SpadeError("E_ENV_CONTRACT", `${opLabel(op)} returned a Promise`, {
          nextStep: "environment methods must be synchronous and return plain JSON values",
        }),
        fatal: false,
      };
    case REPLY_TAGS.noMethod:
      return {
        ok: false,
        error: new SpadeError("E_ENV_CONTRACT", `Environment has no method ${opLabel(op)}`, {
          nextStep: "define reset(seed), step(action), hint() and solve() on the Environment class",
        }),
        fatal: false,
      };
    case REPLY_TAGS.tooLarge:
      return { ok: false, error: outputSizeError(op, Number(payload), outputBytes), fatal: false };
    case REPLY_TAGS.noEnvironment:
      return {
        ok: false,
        error: new SpadeError(
          "E_SANDBOX_COMPILE",
          "the program defines no class named Environment",
          {
            nextStep: "declare `class Environment { ... }` at the top level of the program",
          },
        ),
        fatal: true,
      };
    default: {
      const error = new SpadeError("E_SANDBOX_THROW", `${opLabel(op)}: unrecognised glue reply`);
      return { ok: false, error, fatal: true };
    }
  }
}

/** E_SANDBOX_OUTPUT_SIZE for an answer of `size` (bytes or, from the guest, characters). */
export function outputSizeError(op: GlueOp, size: number, outputBytes: number): SpadeError {
  return new SpadeError(
    "E_SANDBOX_OUTPUT_SIZE",
    `${opLabel(op)} returned ${size} bytes of JSON, over the ${outputBytes}-byte limit`,
    {
      nextStep: "return smaller observations and info",
    },
  );
}

/**
 * E_SANDBOX_TIMEOUT for a call that ran past its deadline; `watchdogGraceMs` when the host's
 * watchdog had to end it that long past the deadline (its cause is then a `WatchdogKill`).
 */
export function timeoutError(op: GlueOp, timeoutMs: number, watchdogGraceMs?: number): SpadeError {
  return new SpadeError(
    "E_SANDBOX_TIMEOUT",
    `${opLabel(op)} ran past its ${timeoutMs} ms deadline`,
    {
      nextStep: "make the method cheaper or raise the limit",
      cause: watchdogGraceMs === undefined ? undefined : new WatchdogKill(watchdogGraceMs),
    },
  );
}

/** E_SANDBOX_MEMORY for a guest that ran out of heap or stack. */
export function memoryError(op: GlueOp, detail: string): SpadeError {
  return new SpadeError(
    "E_SANDBOX_MEMORY",
    `${opLabel(op)} ran out of memory or stack: ${clipGuestMessage(detail)}`,
    {
      nextStep: "use less memory or shallower recursion",
    },
  );
}

/** E_SANDBOX_COMPILE for a program that does not compile or whose top level throws. */
export function compileError(detail: string): SpadeError {
  return new SpadeError(
    "E_SANDBOX_COMPILE",
    `the program did not load: ${clipGuestMessage(detail)}`,
    {
      nextStep: "fix the program so it parses and its top level runs without throwing",
    },
  );
}

/**
 * The `cause` of an E_SANDBOX_DISPOSED for a request that waited on a runner (a sandbox process,
 * a QuickJS worker) while another guest's call killed it there: the request itself never ran.
 */
export class LostToAnotherGuest extends Error {
  constructor(runnerName: string) {
    super(`${runnerName} died while running another guest`);
    this.name = "LostToAnotherGuest";
  }
}

/** E_SANDBOX_DISPOSED for a call on a disposed instance. */
export function disposedError(op: GlueOp): SpadeError {
  return new SpadeError("E_SANDBOX_DISPOSED", `${opLabel(op)}: the sandbox instance was disposed`, {
    nextStep: "create a new instance",
  });
}

/** Rejects a deadline that is not a positive finite number of milliseconds. */
export function checkTimeoutMs(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new SpadeError(
      "E_CONFIG",
      `sandbox timeout must be a positive number of milliseconds, got ${timeoutMs}`,
    );
  }
}

/** A constructor that throws means the program does not load: E_SANDBOX_THROW becomes COMPILE. */
export function asLoadError(err: unknown): unknown {
  if (isSpadeError(err, "E_SANDBOX_THROW")) return compileError(err.message);
  return err;
}
