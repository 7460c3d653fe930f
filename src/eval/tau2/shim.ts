/**
 * @module eval/tau2/shim
 * A small OpenAI-compatible chat server SPADE serves itself, so tau2-bench's harness (which calls
 * models through litellm) can play against players that live in SPADE: the scripted oracle,
 * idle agent and user, or any other handler. One handler per model name.
 */
import { isSpadeError, SpadeError } from "../../errors.js";
import { isOutageFailure } from "../../policy/index.js";
import {
  type ConnectionLimits,
  createLimitedServer,
  listenLoopback,
  readBody,
  sendJson,
} from "../../net/index.js";
import type { JsonObject } from "../../env/index.js";
import type { ChatMessage, ScriptedTurn } from "./scripted.js";

/** One chat request as the shim received it. */
export interface ShimRequest {
  model: string;
  messages: ChatMessage[];
  /** The whole request body (sampling parameters, tools...). */
  body: JsonObject;
  /** Lower-cased request headers. */
  headers: Record<string, string | undefined>;
}

/** An assistant message in the OpenAI wire shape. */
export interface ShimMessage {
  message: {
    role: "assistant";
    content: string | null;
    tool_calls?: Array<{
      id: string;
      type: "function";
      function: { name: string; arguments: string };
    }>;
  };
}

/** Answers one chat request: text, one tool call, or a whole assistant message. */
export type ShimHandler = (
  request: ShimRequest,
) => ScriptedTurn | ShimMessage | Promise<ScriptedTurn | ShimMessage>;

/** A running shim. */
export interface Shim {
  /** e.g. `http://127.0.0.1:40123/v1` */
  baseURL: string;
  /**
   * Every request received, in order, with its body, when started with `record` (checks of what
   * the harness sent); empty otherwise, since each request carries the whole conversation so far.
   */
  requests: ShimRequest[];
  close(): Promise<void>;
}

/**
 * Default largest chat request body: 16 MiB. A request carries the conversation a model reads;
 * a context of 1M tokens is about 4 MiB of text, which JSON escaping of tool results can double.
 */
export const DEFAULT_SHIM_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Settings of `startShim`. */
export interface ShimOptions {
  /** Port on 127.0.0.1. Default a free one. */
  port?: number;
  /** Larger request bodies are answered 413 without being kept. Default DEFAULT_SHIM_MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** Keep every request in `requests` (tests). Default false: an evaluation's memory stays flat. */
  record?: boolean;
  /** Bounds on slow clients and connections; SHIM_CONNECTION_LIMITS where not given. */
  connectionLimits?: Partial<ConnectionLimits>;
}

/**
 * The shim's bounds: the shared ones (net/limits.ts), but idle connections stay open 10 minutes,
 * since litellm's HTTP client reuses them, and a server that closes one (Node's default: after
 * 5 s idle) races a request sent on it ("Connection error" in the harness). The headers and request
 * timeouts run only while a request is being received, so they do not cut an idle connection. The
 * per-address bound never applies: the shim listens on loopback, whose clients it does not count
 * (net/addresses.ts), so litellm may open a connection per request in flight (one per simulation).
 */
export const SHIM_CONNECTION_LIMITS: Partial<ConnectionLimits> = { keepAliveTimeoutMs: 600_000 };

/** The OpenAI `chat.completion` object for a handler's answer. */
export function completionOf(
  model: string,
  turn: ScriptedTurn | ShimMessage,
  n: number,
): JsonObject {
  const message =
    "message" in turn
      ? turn.message
      : "toolCall" in turn
        ? {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: `call_${n}`,
                type: "function",
                function: {
                  name: turn.toolCall.name,
                  arguments: JSON.stringify(turn.toolCall.arguments),
                },
              },
            ],
          }
        : { role: "assistant", content: turn.content };
  const calls = "message" in turn ? (turn.message.tool_calls?.length ?? 0) > 0 : "toolCall" in turn;
  return {
    id: `chatcmpl-spade-${n}`,
    object: "chat.completion",
    created: 0,
    model,
    choices: [{ index: 0, message, finish_reason: calls ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  } as JsonObject;
}

/**
 * The status of a handler's error, as the harness's driver reads it (scripts/tau2/driver.py counts
 * a 5xx as a model server's failure): a model server that failed behind the handler (the Tinker
 * sampler's E_POLICY_HTTP / E_POLICY_TIMEOUT) 502; any other coded error (a conversation over the
 * context budget, an oracle without its ground truth) 400, the request's fault, not an outage;
 * anything else 500.
 */
function errorStatus(err: unknown): [number, string] {
  if (isOutageFailure(err)) return [502, "bad_gateway"];
  if (isSpadeError(err)) return [400, "invalid_request_error"];
  return [500, "server_error"];
}

/**
 * Starts the shim on 127.0.0.1 (a free port unless `port` is given). Requests for a model without
 * a handler get HTTP 404, a handler's error HTTP 502, 400 or 500 (`errorStatus`) and a body over
 * `maxBodyBytes` HTTP 413 (read and dropped, not buffered), each as an OpenAI error object, so the
 * harness records the failure instead of a made-up answer.
 */
export async function startShim(
  handlers: Record<string, ShimHandler>,
  options: ShimOptions = {},
): Promise<Shim> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_SHIM_MAX_BODY_BYTES;
  const requests: ShimRequest[] = [];
  let served = 0;
  const limits = { ...SHIM_CONNECTION_LIMITS, ...options.connectionLimits };
  const server = createLimitedServer((req, res) => {
    void (async () => {
      if (req.method !== "POST" || !/\/chat\/completions$/.test(req.url ?? "")) {
        sendJson(res, 404, {
          error: { message: `no route ${req.method} ${req.url}`, type: "not_found" },
        });
        return;
      }
      let text: string | null;
      try {
        text = await readBody(req, maxBodyBytes);
      } catch {
        return; // the client went away mid-body: nobody to answer
      }
      if (text === null) {
        sendJson(res, 413, {
          error: {
            message: `request body over ${maxBodyBytes} bytes`,
            type: "invalid_request_error",
          },
        });
        return;
      }
      let body: JsonObject;
      try {
        body = JSON.parse(text) as JsonObject;
      } catch (err) {
        sendJson(res, 400, {
          error: {
            message: `body is not JSON: ${(err as Error).message}`,
            type: "invalid_request_error",
          },
        });
        return;
      }
      const model = typeof body.model === "string" ? body.model : "";
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k.toLowerCase()] = Array.isArray(v) ? v.join(",") : v;
      const request: ShimRequest = {
        model,
        messages: (body.messages ?? []) as unknown as ChatMessage[],
        body,
        headers,
      };
      if (options.record) requests.push(request);
      const handler = handlers[model];
      if (!handler) {
        sendJson(res, 404, {
          error: {
            message: `model ${JSON.stringify(model)} is not served here (served: ${Object.keys(handlers).join(", ")})`,
            type: "not_found",
          },
        });
        return;
      }
      try {
        const turn = await handler(request);
        served += 1;
        sendJson(res, 200, completionOf(model, turn, served));
      } catch (err) {
        const [status, type] = errorStatus(err);
        sendJson(res, status, { error: { message: (err as Error).message, type } });
      }
    })();
  }, limits);
  const { port, close } = await listenLoopback(server, options.port).catch((err: Error) => {
    throw new SpadeError("E_IO", `the tau2 model shim cannot listen: ${err.message}`, {
      nextStep: "free the port or omit it",
      cause: err,
    });
  });
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close,
  };
}
