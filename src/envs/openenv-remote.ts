/**
 * @module envs/openenv-remote
 * A remote OpenEnv environment as an `Env`: `openenv+ws://HOST:PORT/NAME` (or `openenv+wss://`)
 * is played over OpenEnv 0.3.0's WebSocket session protocol (`/NAME/ws`), one session per `Env`.
 * Text actions are sent as `{"text": ...}` (or the field `?text_field=` names, e.g. `message`
 * for OpenEnv's echo environment); each tool call as a `call_tool` action; a message over the
 * reference's `?max_message_bytes=` (default 8 MiB) ends the session. The reference and the
 * meta are read by envs/openenv-ref.ts. Remote environments have no privileged hint or oracle:
 * `hint()` and `solve()` reject with E_ENV_CONTRACT.
 */
import WebSocket from "ws";
import type {
  Action,
  Env,
  EnvMeta,
  Json,
  JsonObject,
  ResetResult,
  StepResult,
  ToolResult,
} from "../env/types.js";
import { SpadeError } from "../errors.js";
import {
  DEFAULT_REMOTE_MESSAGE_BYTES,
  DEFAULT_REMOTE_TIMEOUT_MS,
  parseOpenEnvRef,
  remoteMeta,
  type OpenEnvTarget,
  type RemoteMetaOptions,
} from "./openenv-ref.js";

/**
 * Messages the server may send that no request is waiting for (its capacity error at connect is
 * one); more and the connection is closed, so a server that floods cannot fill memory.
 */
export const MAX_UNASKED_MESSAGES = 8;

/**
 * Bytes those unasked messages may hold together: 1 MiB. A capacity error is a few hundred
 * bytes; the count cap alone let 8 messages of the largest size each stay in memory.
 */
export const MAX_UNASKED_BYTES = 1024 * 1024;

interface Payload {
  observation?: Record<string, unknown>;
  reward?: number | null;
  done?: boolean;
}

/** Observation text: SPADE's `text`, else the echo-style fields, else the observation as JSON. */
function observationText(obs: Record<string, unknown>): string {
  for (const key of ["text", "echoed_message", "message", "prompt"])
    if (typeof obs[key] === "string") return obs[key] as string;
  return JSON.stringify(obs);
}

/** One session on a remote OpenEnv environment. */
export class OpenEnvRemoteEnv implements Env {
  #ws: WebSocket;
  #inbox: string[] = [];
  /** UTF-8 bytes of the messages in `#inbox`. */
  #inboxBytes = 0;
  #waiters: Array<{ resolve: (raw: string) => void; reject: (err: Error) => void }> = [];
  #closedError: Error | null = null;
  /** What to do about `#closedError`, when it is not the usual (a message over the cap). */
  #closedNextStep: string | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly meta: EnvMeta,
    readonly target: OpenEnvTarget,
    ws: WebSocket,
    private readonly timeoutMs: number,
  ) {
    this.#ws = ws;
    ws.on("message", (data) => {
      const raw = data.toString();
      const w = this.#waiters.shift();
      if (w) return w.resolve(raw);
      const bytes = Buffer.byteLength(raw);
      if (
        this.#inbox.length < MAX_UNASKED_MESSAGES &&
        this.#inboxBytes + bytes <= MAX_UNASKED_BYTES
      ) {
        this.#inbox.push(raw);
        this.#inboxBytes += bytes;
        return;
      }
      this.#closedError ??= new Error(
        `the server sent more than ${MAX_UNASKED_MESSAGES} messages or ${MAX_UNASKED_BYTES} bytes that no request asked for; the connection was closed`,
      );
      this.#inbox = [];
      this.#inboxBytes = 0;
      ws.terminate();
    });
    ws.on("close", (code, reason) => {
      this.#closedError ??= new Error(
        `the connection closed (${code}${reason.length ? ` ${reason.toString()}` : ""})`,
      );
      for (const w of this.#waiters.splice(0)) w.reject(this.#closedError);
    });
    ws.on("error", (err: Error & { code?: string }) => {
      // `ws` refuses a message over `maxPayload` with this code, then drops the connection.
      if (err.code !== "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" || this.#closedError) return;
      this.#closedError = new Error(
        `the server sent a message of more than ${target.maxMessageBytes} bytes; the connection was closed`,
      );
      this.#closedNextStep = `if its replies are that large, raise the cap with ?max_message_bytes=N on the reference (default ${DEFAULT_REMOTE_MESSAGE_BYTES}); reopen the environment`;
    });
  }

  /**
   * Connects to `ref` (E_CONFIG when malformed, E_REMOTE_ENV when unreachable or silent): each
   * HTTP answer, the handshake and every later reply within `timeoutMs`.
   */
  static async open(ref: string, options: RemoteMetaOptions = {}): Promise<OpenEnvRemoteEnv> {
    const target = parseOpenEnvRef(ref);
    const timeoutMs = options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
    const meta = await remoteMeta(target, options);
    const ws = new WebSocket(target.wsUrl, {
      maxPayload: target.maxMessageBytes,
      handshakeTimeout: timeoutMs,
    });
    // Listening before the socket opens: a server's first message (a capacity error) can arrive
    // in the same read as the handshake.
    const env = new OpenEnvRemoteEnv(meta, target, ws, timeoutMs);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", (err) =>
        reject(
          new SpadeError("E_REMOTE_ENV", `${target.wsUrl}: ${err.message}`, {
            cause: err,
            nextStep: "check that the OpenEnv server runs",
          }),
        ),
      );
    });
    return env;
  }

  reset(seed: number): Promise<ResetResult> {
    return this.#serial(async () => {
      const data = await this.#ask({ type: "reset", data: { seed } });
      const obs = data.observation ?? {};
      return {
        observation: observationText(obs),
        info: (typeof obs.info === "object" && obs.info !== null ? obs.info : {}) as JsonObject,
      };
    });
  }

  step(action: Action): Promise<StepResult> {
    return this.#serial(async () => {
      if (action.toolCalls.length === 0)
        return this.#result(
          await this.#ask({ type: "step", data: { [this.target.textField]: action.text } }),
          [],
        );
      const toolResults: ToolResult[] = [];
      let last: Payload = {};
      let reward = 0;
      for (const call of action.toolCalls) {
        last = await this.#ask({
          type: "step",
          data: { type: "call_tool", tool_name: call.name, arguments: call.arguments },
        });
        reward += typeof last.reward === "number" ? last.reward : 0;
        const obs = last.observation ?? {};
        toolResults.push({
          id: call.id,
          content:
            typeof obs.result === "string"
              ? obs.result
              : obs.result !== undefined && obs.result !== null
                ? JSON.stringify(obs.result)
                : observationText(obs),
        });
        if (last.done) break;
      }
      return this.#result({ ...last, reward }, toolResults);
    });
  }

  hint(): Promise<string> {
    return Promise.reject(
      new SpadeError(
        "E_ENV_CONTRACT",
        `${this.target.httpBase}: remote OpenEnv environments have no privileged hint`,
        { nextStep: "play without --hint" },
      ),
    );
  }

  solve(): Promise<Action> {
    return Promise.reject(
      new SpadeError(
        "E_ENV_CONTRACT",
        `${this.target.httpBase}: remote OpenEnv environments have no oracle`,
        { nextStep: "play with a model policy" },
      ),
    );
  }

  async close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.OPEN) {
      this.#ws.send(JSON.stringify({ type: "close" }));
      this.#ws.close(1000);
    }
  }

  #result(p: Payload, toolResults: ToolResult[]): StepResult {
    const obs = p.observation ?? {};
    const raw = typeof p.reward === "number" && Number.isFinite(p.reward) ? p.reward : 0;
    const reward = Math.max(-1, Math.min(1, raw));
    const truncated = obs.truncated === true;
    const info = {
      ...((typeof obs.info === "object" && obs.info !== null ? obs.info : {}) as JsonObject),
      ...(reward !== raw ? { remoteReward: raw as Json } : {}),
    };
    return {
      observation: observationText(obs),
      reward,
      terminated: p.done === true && !truncated,
      truncated,
      info,
      ...(toolResults.length > 0 ? { toolResults } : {}),
    };
  }

  async #ask(message: unknown): Promise<Payload> {
    if (this.#closedError)
      throw new SpadeError("E_REMOTE_ENV", `${this.target.wsUrl}: ${this.#closedError.message}`, {
        nextStep: this.#closedNextStep ?? "open the environment again",
      });
    this.#ws.send(JSON.stringify(message));
    const raw = await new Promise<string>((resolve, reject) => {
      const queued = this.#inbox.shift();
      if (queued !== undefined) {
        this.#inboxBytes -= Buffer.byteLength(queued);
        return resolve(queued);
      }
      // A reply that comes later would be taken for the next request's: the connection goes, and
      // with it every request still waiting (closing rejects them).
      const timer = setTimeout(() => {
        this.#closedError ??= new Error(
          `no answer within ${this.timeoutMs} ms; the connection was closed, so that a late reply cannot be taken for another request's`,
        );
        for (const w of this.#waiters.splice(0)) w.reject(this.#closedError);
        this.#ws.terminate();
      }, this.timeoutMs);
      this.#waiters.push({
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    }).catch((err: Error) => {
      throw new SpadeError("E_REMOTE_ENV", `${this.target.wsUrl}: ${err.message}`, {
        cause: err,
        nextStep: this.#closedNextStep ?? "check the server's log; reopen the environment",
      });
    });
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(raw);
    } catch {
      // not JSON: refused below
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new SpadeError(
        "E_REMOTE_ENV",
        `${this.target.wsUrl}: the server answered with a message that is not a JSON object: ${JSON.stringify(raw.slice(0, 200))}`,
        { nextStep: "check that the address is an OpenEnv server's environment" },
      );
    const reply = parsed as { type?: string; data?: { code?: string; message?: string } & Payload };
    if (reply.type === "error") {
      throw new SpadeError(
        "E_REMOTE_ENV",
        `${this.target.httpBase}: ${reply.data?.code ?? "ERROR"}: ${reply.data?.message ?? "unknown error"}`,
        {
          nextStep:
            reply.data?.code === "CAPACITY_REACHED"
              ? "lower --concurrency or raise the server's --max-sessions"
              : "see the server's error code in docs/serving.md",
        },
      );
    }
    return reply.data ?? {};
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** Opens `openenv+ws://HOST:PORT/NAME` as an `Env`. */
export function openRemoteEnv(ref: string): Promise<Env> {
  return OpenEnvRemoteEnv.open(ref);
}
