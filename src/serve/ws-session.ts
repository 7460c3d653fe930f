/**
 * @module serve/ws-session
 * OpenEnv's WebSocket session protocol on one open session (`WS /<name>/ws`): a text frame (reset,
 * step, state, close, mcp) answered on its socket; every failure an error message with OpenEnv's code.
 */
import type { WebSocket } from "ws";
import type { CatalogEntry } from "./catalog.js";
import { handleRpc, parseRpc } from "./mcp.js";
import {
  errorText,
  parseAction,
  parseWsMessage,
  ProtocolError,
  ResetData,
  toIssues,
  type WsErrorCode,
} from "./protocol.js";
import type { EnvSession } from "./session.js";
import type { ServerSessions } from "./sessions.js";

/** Sends `{"type": "error", "data": {message, code, ...extra}}`, if the socket is still open. */
export function wsError(
  ws: WebSocket,
  code: WsErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  if (ws.readyState === ws.OPEN)
    ws.send(JSON.stringify({ type: "error", data: { message, code, ...extra } }));
}

/**
 * Answers one text frame on `session`: an observation, the state, an MCP answer, or an error
 * (`EXECUTION_ERROR` with `spade_code` when the environment failed); the session goes on after
 * each. The session counts as active while the frame runs.
 */
export async function wsFrame(
  ws: WebSocket,
  sessions: ServerSessions,
  entry: CatalogEntry,
  session: EnvSession,
  raw: string,
): Promise<void> {
  sessions.registry.touch(session.id);
  try {
    const msg = parseWsMessage(raw);
    switch (msg.type) {
      case "reset": {
        const data = ResetData.safeParse(msg.data);
        if (!data.success)
          throw new ProtocolError(
            "VALIDATION_ERROR",
            "Invalid reset data",
            toIssues(data.error, ["data"]),
          );
        ws.send(JSON.stringify({ type: "observation", data: await session.reset(data.data) }));
        break;
      }
      case "step": {
        const wire = parseAction(msg.data, () => session.nextCallId());
        ws.send(JSON.stringify({ type: "observation", data: await session.step(wire) }));
        break;
      }
      case "state":
        ws.send(JSON.stringify({ type: "state", data: session.state() }));
        break;
      case "close":
        ws.close(1000, "closed by client");
        break;
      case "mcp": {
        const request = parseRpc(msg.data);
        const answer =
          "method" in request
            ? await handleRpc(request, sessions.mcpContext(entry, session))
            : request;
        if (answer) ws.send(JSON.stringify({ type: "mcp", data: answer }));
        break;
      }
    }
  } catch (err) {
    if (err instanceof ProtocolError) {
      wsError(ws, err.code, err.message, err.issues.length > 0 ? { errors: err.issues } : {});
    } else {
      const e = errorText(err);
      wsError(ws, "EXECUTION_ERROR", e.message, e.spadeCode ? { spade_code: e.spadeCode } : {});
    }
  } finally {
    sessions.registry.touch(session.id);
  }
}
