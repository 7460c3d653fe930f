/**
 * @module serve/mcp-http
 * MCP over HTTP (`/<name>/mcp`): one JSON-RPC request per POST, and the Streamable HTTP transport's
 * session, created at `initialize`, named by `Mcp-Session-Id`, closed by DELETE. No GET (SSE).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CatalogEntry } from "./catalog.js";
import { readBody, sendJson } from "../net/index.js";
import { capacityError, handleRpc, parseRpc, RPC, rpcError, type RpcResponse } from "./mcp.js";
import { errorText } from "./protocol.js";
import { CapacityError } from "./registry.js";
import type { ServerSessions } from "./sessions.js";

/**
 * `POST /mcp`: answers one JSON-RPC request (202 with no body for a notification). A request naming
 * an unknown `Mcp-Session-Id` is 404; `initialize` from a Streamable HTTP client opens the session
 * it will name, seeded by `seed`.
 */
export async function postMcp(
  sessions: ServerSessions,
  entry: CatalogEntry,
  req: IncomingMessage,
  res: ServerResponse,
  seed: number | null,
  maxBytes: number,
): Promise<void> {
  const text = await readBody(req, maxBytes);
  if (text === null)
    return sendJson(
      res,
      413,
      rpcError(null, RPC.INVALID_REQUEST, `request body over ${maxBytes} bytes`),
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return sendJson(res, 200, rpcError(null, RPC.PARSE_ERROR, "Parse error"));
  }
  const parsed = parseRpc(value);
  if ("jsonrpc" in parsed && !("method" in parsed)) return sendJson(res, 200, parsed);
  const request = parsed as Exclude<typeof parsed, RpcResponse>;
  const sid = req.headers["mcp-session-id"];
  const ctx = sessions.mcpContext(entry);
  const headers: Record<string, string> = {};
  if (typeof sid === "string") {
    const bound = sessions.registry.get(sid);
    if (!bound)
      return sendJson(
        res,
        404,
        rpcError(request.id, RPC.INVALID_PARAMS, `Unknown MCP session ${sid}; initialize again`),
      );
    ctx.bound = bound;
    sessions.registry.touch(sid);
  } else if (
    request.method === "initialize" &&
    String(req.headers.accept ?? "").includes("text/event-stream")
  ) {
    // A Streamable HTTP client (the MCP SDKs): the session it will name in Mcp-Session-Id.
    try {
      const session = await ctx.create(seed);
      headers["mcp-session-id"] = session.id;
    } catch (err) {
      if (err instanceof CapacityError) return sendJson(res, 200, capacityError(request.id, err));
      return sendJson(res, 200, rpcError(request.id, RPC.SERVER_ERROR, errorText(err).message));
    }
  }
  const answer = await handleRpc(request, ctx);
  if (answer === null) {
    res.writeHead(202, headers);
    return void res.end();
  }
  return sendJson(res, 200, answer, headers);
}

/** `DELETE /mcp`: closes the session its `Mcp-Session-Id` names; 404 when unknown. */
export async function deleteMcp(
  sessions: ServerSessions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const sid = req.headers["mcp-session-id"];
  if (typeof sid !== "string" || !sessions.registry.get(sid))
    return sendJson(res, 404, rpcError(null, RPC.INVALID_PARAMS, "Unknown MCP session"));
  await sessions.registry.release(sid);
  return sendJson(res, 200, { closed: true });
}

/** `GET /mcp`: 405, since the server-sent events stream is not offered. */
export function getMcp(res: ServerResponse): void {
  sendJson(
    res,
    405,
    { detail: "GET /mcp (server-sent events) is not offered; POST JSON-RPC requests" },
    { allow: "POST, DELETE" },
  );
}
