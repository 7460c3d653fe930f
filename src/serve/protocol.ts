/**
 * @module serve/protocol
 * OpenEnv 0.3.0's wire format as `spade serve` speaks it: the WebSocket message kinds and error
 * codes (`openenv/core/env_server/types.py`), the actions SPADE accepts (a text action, OpenEnv's
 * `call_tool` / `list_tools` MCP actions), and the observation payload `{observation, reward, done}`.
 */
import { z } from "zod";
import type { Action, JsonObject, ToolSpec } from "../env/index.js";
import { makeAction } from "../env/index.js";
import { isSpadeError } from "../errors.js";

/** OpenEnv's `WSErrorCode`, the `code` of every WebSocket error message. */
export const WS_ERROR_CODES = [
  "INVALID_JSON",
  "UNKNOWN_TYPE",
  "VALIDATION_ERROR",
  "EXECUTION_ERROR",
  "CAPACITY_REACHED",
  "FACTORY_ERROR",
  "SESSION_ERROR",
] as const;

/** One of OpenEnv's WebSocket error codes. */
export type WsErrorCode = (typeof WS_ERROR_CODES)[number];

/** A validation problem in pydantic's shape (`loc`, `msg`, `type`), as OpenEnv's clients print them. */
export interface ValidationIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
}

/** A request that does not have the shape the protocol asks for; `issues` say where. */
export class ProtocolError extends Error {
  constructor(
    readonly code: WsErrorCode,
    message: string,
    readonly issues: ValidationIssue[] = [],
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** A failure as answers state it: SPADE's code before its message, and the code alone. */
export function errorText(err: unknown): { message: string; spadeCode?: string } {
  if (isSpadeError(err)) return { message: `${err.code}: ${err.message}`, spadeCode: err.code };
  return { message: err instanceof Error ? err.message : String(err) };
}

/** zod issues in pydantic's shape, locations prefixed by `prefix`. */
export function toIssues(
  error: z.ZodError,
  prefix: Array<string | number> = [],
): ValidationIssue[] {
  return error.issues.map((i) => ({
    type: i.code,
    loc: [...prefix, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    msg: i.message,
  }));
}

/**
 * `data` parsed by `schema`; when it does not fit, a VALIDATION_ERROR saying `message` with the
 * issues, their locations prefixed by `prefix`.
 */
function validated<T>(
  schema: z.ZodType<T>,
  data: unknown,
  message: string,
  prefix: Array<string | number> = [],
): T {
  const r = schema.safeParse(data);
  if (!r.success) throw new ProtocolError("VALIDATION_ERROR", message, toIssues(r.error, prefix));
  return r.data;
}

const jsonObject = z.record(z.string(), z.unknown());

/** Reset parameters: OpenEnv's `ResetRequest` (extra keys allowed) plus SPADE's `hint`. */
export const ResetData = z
  .object({
    seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
    episode_id: z.string().max(255).nullish(),
    /** Append the environment's privileged hint to the first observation (`HINT: ...`). */
    hint: z.boolean().optional(),
  })
  .passthrough();

/** Parsed reset parameters. */
export type ResetData = z.infer<typeof ResetData>;

const toolCall = z
  .object({
    id: z.string().min(1).max(200).optional(),
    name: z.string().min(1).max(200),
    arguments: jsonObject.default({}),
  })
  .strict();

/** A text action: the agent's whole message; SPADE's action parsing applies (boxed answers, tool-call text). */
const TextAction = z
  .object({
    text: z.string().max(1_000_000),
    tool_calls: z.array(toolCall).max(64).optional(),
    metadata: jsonObject.optional(),
  })
  .strict();

/** OpenEnv's `CallToolAction`. */
const CallToolAction = z
  .object({
    type: z.literal("call_tool"),
    tool_name: z.string().min(1).max(200),
    arguments: jsonObject.default({}),
    metadata: jsonObject.optional(),
  })
  .strict();

/** OpenEnv's `ListToolsAction`. */
const ListToolsAction = z
  .object({ type: z.literal("list_tools"), metadata: jsonObject.optional() })
  .strict();

/** An action as it arrived: what the session does with it. */
export type WireAction =
  | { kind: "act"; action: Action; toolName: string | null }
  | { kind: "list_tools" };

/**
 * Turns an OpenEnv action dict into a SPADE action. Throws `ProtocolError` VALIDATION_ERROR when
 * it matches none of the accepted shapes; `loc` is prefixed by `where`.
 */
export function parseAction(
  data: unknown,
  callId: () => string,
  where: Array<string | number> = ["data"],
): WireAction {
  const type =
    typeof data === "object" && data !== null && !Array.isArray(data)
      ? (data as { type?: unknown }).type
      : undefined;
  if (type === "list_tools") {
    validated(ListToolsAction, data, "Invalid list_tools action", where);
    return { kind: "list_tools" };
  }
  if (type === "call_tool") {
    const tool = validated(CallToolAction, data, "Invalid call_tool action", where);
    const call = { id: callId(), name: tool.tool_name, arguments: tool.arguments as JsonObject };
    return { kind: "act", action: makeAction("", [call]), toolName: tool.tool_name };
  }
  const text = validated(
    TextAction,
    data,
    'Invalid action: send {"text": "..."} (a game move or final answer) or {"type": "call_tool", "tool_name": ..., "arguments": {...}}',
    where,
  );
  const calls = (text.tool_calls ?? []).map((c) => ({
    id: c.id ?? callId(),
    name: c.name,
    arguments: c.arguments as JsonObject,
  }));
  return { kind: "act", action: makeAction(text.text, calls), toolName: null };
}

/** The WebSocket messages a client may send (`WSResetMessage` ... `WSCloseMessage`, `WSMCPMessage`). */
export const WS_MESSAGE_TYPES = ["reset", "step", "state", "close", "mcp"] as const;

const envelope = {
  reset: z.object({ type: z.literal("reset"), data: jsonObject.default({}) }).strict(),
  step: z.object({ type: z.literal("step"), data: jsonObject }).strict(),
  state: z.object({ type: z.literal("state") }).strict(),
  close: z.object({ type: z.literal("close") }).strict(),
  mcp: z.object({ type: z.literal("mcp"), data: jsonObject }).strict(),
};

/** One parsed WebSocket message. */
export type WsMessage =
  | { type: "reset"; data: Record<string, unknown> }
  | { type: "step"; data: Record<string, unknown> }
  | { type: "state" }
  | { type: "close" }
  | { type: "mcp"; data: Record<string, unknown> };

/**
 * Parses one WebSocket text frame. Throws `ProtocolError` INVALID_JSON, UNKNOWN_TYPE or
 * VALIDATION_ERROR, the codes OpenEnv's server answers with.
 */
export function parseWsMessage(raw: string): WsMessage {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ProtocolError("INVALID_JSON", `Invalid JSON: ${(err as Error).message}`);
  }
  const type =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as { type?: unknown }).type
      : undefined;
  if (typeof type !== "string" || !(WS_MESSAGE_TYPES as readonly string[]).includes(type)) {
    throw new ProtocolError(
      "UNKNOWN_TYPE",
      `Unknown message type: ${typeof type === "string" ? type : ""}`,
    );
  }
  return validated<unknown>(
    envelope[type as keyof typeof envelope],
    value,
    "Invalid message",
  ) as WsMessage;
}

/** The observation fields SPADE sends (OpenEnv's `Observation` minus reward/done/metadata, plus ours). */
export interface ObservationFields {
  /** What the agent sees: the environment's observation text. */
  text: string;
  /** Answers to this step's tool calls, by call id. */
  tool_results: Array<{ id: string; content: string }>;
  /** For a `call_tool` action: the tool called and its result (OpenEnv's `CallToolObservation`). */
  tool_name?: string;
  result?: string | null;
  /** For `list_tools`, and on reset of tool-use environments: the tools in MCP form. */
  tools?: McpTool[];
  /** The environment's free-form diagnostics (never shown to the agent by SPADE's own runner). */
  info: JsonObject;
  /** The episode ended by the environment's rules. */
  terminated: boolean;
  /** The episode was cut short (by the environment, or at the environment's `maxTurns`). */
  truncated: boolean;
  /** Agent turns taken in this episode. */
  step_count: number;
}

/** `{observation, reward, done}`: OpenEnv's serialised observation. */
export interface ObservationPayload {
  observation: ObservationFields;
  reward: number | null;
  done: boolean;
}

/** An MCP tool description (`tools/list`). */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonObject;
}

/** The environment's OpenAI function tools in MCP form. */
export function mcpTools(tools: readonly ToolSpec[]): McpTool[] {
  return tools.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    inputSchema: t.function.parameters,
  }));
}

/** JSON schemas for `/schema`: the actions accepted, the observation sent, the state. */
export function schemas(): { action: JsonObject; observation: JsonObject; state: JsonObject } {
  return {
    action: z.toJSONSchema(z.union([TextAction, CallToolAction, ListToolsAction]), {
      io: "input",
    }) as JsonObject,
    observation: {
      title: "SpadeObservation",
      type: "object",
      properties: {
        text: { type: "string" },
        tool_results: {
          type: "array",
          items: {
            type: "object",
            properties: { id: { type: "string" }, content: { type: "string" } },
          },
        },
        tool_name: { type: "string" },
        result: { type: ["string", "null"] },
        tools: { type: "array", items: { type: "object" } },
        info: { type: "object" },
        terminated: { type: "boolean" },
        truncated: { type: "boolean" },
        step_count: { type: "integer" },
        done: { type: "boolean" },
        reward: { type: ["number", "null"] },
      },
      required: ["text"],
    },
    state: {
      title: "SpadeState",
      type: "object",
      additionalProperties: true,
      properties: {
        episode_id: { type: ["string", "null"] },
        step_count: { type: "integer", minimum: 0 },
        seed: { type: ["integer", "null"] },
        env: { type: "string" },
        done: { type: "boolean" },
        episode_return: { type: "number" },
      },
    },
  };
}
