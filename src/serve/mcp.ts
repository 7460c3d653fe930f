/**
 * @module serve/mcp
 * JSON-RPC 2.0 for MCP clients, the one handler behind `POST /mcp`, `WS /mcp` and `{"type": "mcp"}`
 * messages on `WS /ws`: OpenEnv's methods (`tools/list`, `tools/call`, `openenv/session/create`,
 * `openenv/session/close`, its error codes) plus the MCP handshake (`initialize`, `ping`,
 * notifications) that the official MCP clients send first. A tool call is one environment step;
 * `final_answer` is added to the tools so an MCP-only agent can end the episode with text.
 */
import { z } from "zod";
import { makeAction } from "../env/index.js";
import { isSpadeError } from "../errors.js";
import { errorText, type McpTool, type ObservationPayload } from "./protocol.js";
import { CapacityError } from "./registry.js";
import type { EnvSession } from "./session.js";

/** OpenEnv's `JsonRpcErrorCode`. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

/** The MCP protocol version answered when the client names none. */
export const MCP_PROTOCOL_VERSION = "2025-06-18";

/** The tool added for the final text answer. */
export const FINAL_ANSWER_TOOL = "final_answer";

/** A JSON-RPC response (result or error). */
export interface RpcResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const RpcRequest = z
  .object({
    jsonrpc: z.literal("2.0"),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).default({}),
    id: z.union([z.string(), z.number()]).nullish(),
  })
  .strict();

/** A parsed JSON-RPC request. */
export type RpcRequest = z.infer<typeof RpcRequest>;

/** An error response. */
export function rpcError(
  id: string | number | null | undefined,
  code: number,
  message: string,
  data?: unknown,
): RpcResponse {
  return {
    jsonrpc: "2.0",
    id: id ?? null,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

/** The SERVER_ERROR answer of a session refused at capacity, with the session counts. */
export function capacityError(
  id: string | number | null | undefined,
  err: CapacityError,
): RpcResponse {
  return rpcError(id, RPC.SERVER_ERROR, err.message, {
    active_sessions: err.activeSessions,
    max_sessions: err.maxSessions,
  });
}

/** Parses a JSON-RPC request value; a malformed one becomes the INVALID_REQUEST response. */
export function parseRpc(value: unknown): RpcRequest | RpcResponse {
  const r = RpcRequest.safeParse(value);
  if (r.success) return r.data;
  const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : null;
  return rpcError(
    typeof id === "string" || typeof id === "number" ? id : null,
    RPC.INVALID_REQUEST,
    `Invalid request: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
  );
}

/** What the handler may do with sessions. */
export interface McpContext {
  /** The environment's tools in MCP form. */
  tools: McpTool[];
  /** The session this connection owns (WS), if any. */
  bound?: EnvSession;
  /** The open session with this id, if any. */
  lookup: (id: string) => EnvSession | undefined;
  /** Opens a session with an episode started at `seed` (random when null); throws CapacityError. */
  create: (seed: number | null) => Promise<EnvSession>;
  /** Closes a session; false when unknown. */
  close: (id: string) => Promise<boolean>;
  /** Marks a session active. */
  touch: (id: string) => void;
}

/** The tools MCP clients see: the environment's plus `final_answer` (unless it has one). */
export function listedTools(tools: McpTool[]): McpTool[] {
  if (tools.some((t) => t.name === FINAL_ANSWER_TOOL)) return tools;
  return [
    ...tools,
    {
      name: FINAL_ANSWER_TOOL,
      description: "Give your final answer as text; this ends the task when the answer is right.",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string", description: "the final answer" } },
        required: ["text"],
      },
    },
  ];
}

function toolResult(payload: ObservationPayload, text: string): unknown {
  return {
    content: [{ type: "text", text }],
    isError: false,
    _meta: {
      spade: {
        reward: payload.reward,
        done: payload.done,
        observation: payload.observation.text,
        info: payload.observation.info,
        step_count: payload.observation.step_count,
      },
    },
  };
}

/** The `seed` of a request's params: a safe integer >= 0, else null (a random seed). */
function seedParam(params: Record<string, unknown>): number | null {
  const seed = params.seed;
  return typeof seed === "number" && Number.isSafeInteger(seed) && seed >= 0 ? seed : null;
}

/** The `?seed=N` of an MCP URL: the seed of the episode its session starts; null when absent or invalid. */
export function urlSeed(url: URL): number | null {
  const seed = url.searchParams.get("seed");
  return seedParam({ seed: seed === null ? undefined : Number(seed) });
}

/** Answers one request; null for a notification (no id), which gets no answer. */
export async function handleRpc(req: RpcRequest, ctx: McpContext): Promise<RpcResponse | null> {
  const id = req.id ?? null;
  const ok = (result: unknown): RpcResponse => ({ jsonrpc: "2.0", id, result });
  if (req.method.startsWith("notifications/")) return null;
  switch (req.method) {
    case "initialize":
      return ok({
        protocolVersion:
          typeof req.params.protocolVersion === "string"
            ? req.params.protocolVersion
            : MCP_PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "spade", version: "0.1.0" },
      });
    case "ping":
      return ok({});
    case "tools/list":
      return ok({ tools: listedTools(ctx.tools) });
    case "openenv/session/create": {
      if (ctx.bound) return ok({ session_id: ctx.bound.id });
      try {
        const session = await ctx.create(seedParam(req.params));
        return ok({ session_id: session.id });
      } catch (err) {
        if (err instanceof CapacityError) return capacityError(id, err);
        return rpcError(id, RPC.SERVER_ERROR, err instanceof Error ? err.message : String(err), {
          code: isSpadeError(err) ? err.code : undefined,
        });
      }
    }
    case "openenv/session/close": {
      const target = req.params.session_id;
      if (typeof target !== "string" || !target)
        return rpcError(id, RPC.INVALID_PARAMS, "Invalid params - 'session_id' is required");
      if (ctx.bound && ctx.bound.id === target)
        return rpcError(
          id,
          RPC.INVALID_REQUEST,
          "Cannot close active WebSocket-managed session via MCP method",
        );
      if (!(await ctx.close(target)))
        return rpcError(id, RPC.INVALID_PARAMS, `Unknown session_id: ${target}`);
      return ok({ session_id: target, closed: true });
    }
    case "tools/call":
      return callTool(req, ctx);
    default:
      return rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${req.method}`);
  }
}

async function callTool(req: RpcRequest, ctx: McpContext): Promise<RpcResponse> {
  const id = req.id ?? null;
  const name = req.params.name;
  const args = req.params.arguments ?? {};
  if (typeof name !== "string" || !name)
    return rpcError(id, RPC.INVALID_PARAMS, "Missing 'name' in params");
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return rpcError(id, RPC.INVALID_PARAMS, "'arguments' must be an object");
  const listed = listedTools(ctx.tools);
  if (!listed.some((t) => t.name === name))
    return rpcError(id, RPC.INVALID_PARAMS, `Tool not found: ${name}`);
  const requested = req.params.session_id;
  let session = ctx.bound;
  let temporary = false;
  if (!session && typeof requested === "string" && requested) {
    session = ctx.lookup(requested);
    if (!session) return rpcError(id, RPC.INVALID_PARAMS, `Unknown session_id: ${requested}`);
  }
  try {
    if (!session) {
      session = await ctx.create(seedParam(req.params));
      temporary = true;
    }
    ctx.touch(session.id);
    const isAnswer =
      name === FINAL_ANSWER_TOOL && !ctx.tools.some((t) => t.name === FINAL_ANSWER_TOOL);
    if (isAnswer) {
      const text = (args as { text?: unknown }).text;
      if (typeof text !== "string")
        return rpcError(id, RPC.INVALID_PARAMS, 'final_answer needs {"text": string}');
      const payload = await session.step({
        kind: "act",
        action: makeAction(text, []),
        toolName: null,
      });
      return { jsonrpc: "2.0", id, result: toolResult(payload, payload.observation.text) };
    }
    const call = { id: session.nextCallId(), name, arguments: args as Record<string, never> };
    const payload = await session.step({
      kind: "act",
      action: { text: "", answer: null, toolCalls: [call] },
      toolName: name,
    });
    return {
      jsonrpc: "2.0",
      id,
      result: toolResult(payload, payload.observation.result ?? payload.observation.text),
    };
  } catch (err) {
    if (err instanceof CapacityError) return capacityError(id, err);
    const e = errorText(err);
    return rpcError(
      id,
      RPC.INTERNAL_ERROR,
      e.message,
      e.spadeCode ? { code: e.spadeCode } : undefined,
    );
  } finally {
    if (temporary && session) await ctx.close(session.id);
  }
}
