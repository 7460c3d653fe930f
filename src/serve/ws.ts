/**
 * @module serve/ws
 * The server's WebSocket connections: which upgrades are served, one session per connection
 * (refused at capacity, closed when it fails to open or is reaped), and its frames handled in
 * arrival order under flow control (ws-flow.ts): `WS /ws` by the session protocol (ws-session.ts),
 * `WS /mcp` as JSON-RPC.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { CatalogEntry } from "./catalog.js";
import {
  capacityError,
  handleRpc,
  parseRpc,
  RPC,
  rpcError,
  type RpcResponse,
  urlSeed,
} from "./mcp.js";
import { type EntryPaths, requestPath } from "./paths.js";
import { errorText } from "./protocol.js";
import { CapacityError } from "./registry.js";
import type { EnvSession } from "./session.js";
import type { ServerSessions } from "./sessions.js";
import { inOrder } from "./ws-flow.js";
import { wsError, wsFrame } from "./ws-session.js";

/** How long a refused connection stays open for its client to read the capacity error. */
const CAPACITY_GRACE_MS = 5000;

/** The server's WebSocket side. */
export interface WebSockets {
  /** The server's `upgrade` listener: a served path becomes a session, any other is 404. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Terminates every connection and stops accepting. */
  close(): void;
}

/**
 * Serves WebSocket sessions on `paths`' environments; frames over `maxBytes` close the socket, and
 * a socket is no longer read while `maxBytes` of its frames wait their turn.
 */
export function webSockets(
  sessions: ServerSessions,
  paths: EntryPaths,
  maxBytes: number,
): WebSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
  const sockets = new Set<WebSocket>();
  return {
    upgrade(req, socket, head) {
      const path = requestPath(req);
      if (!path) {
        socket.end("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        return;
      }
      const { url, parts } = path;
      const target = paths.socket(parts);
      if (!target) {
        socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.add(ws);
        ws.on("close", () => sockets.delete(ws));
        ws.on("error", () => ws.terminate());
        if (target.kind === "ws") onWsSession(ws, sessions, target.entry, maxBytes);
        else onMcpSocket(ws, sessions, target.entry, urlSeed(url), maxBytes);
      });
    },
    close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
    },
  };
}

/** Opens a session for a socket; on capacity or factory failure says so and closes. */
function socketSession(
  ws: WebSocket,
  sessions: ServerSessions,
  entry: CatalogEntry,
  protocol: "ws" | "mcp",
): Promise<EnvSession | null> {
  const reaped = () => {
    const message = `session idle for more than ${sessions.timeoutS} s; it was closed`;
    if (protocol === "ws") wsError(ws, "SESSION_ERROR", message);
    ws.close(1000, "idle session closed");
  };
  let handle: { id: string; opened: Promise<EnvSession> };
  try {
    handle = sessions.open(entry, reaped);
  } catch (err) {
    if (!(err instanceof CapacityError)) throw err;
    if (protocol === "ws")
      wsError(ws, "CAPACITY_REACHED", err.message, {
        active_sessions: err.activeSessions,
        max_sessions: err.maxSessions,
      });
    else ws.send(JSON.stringify(capacityError(null, err)));
    // Closed at the client's first message (or after a grace period), not at once: OpenEnv's
    // client sends its reset right after connecting, and must read the error as the answer
    // rather than find the connection already closed.
    const closeNow = () => ws.close(1000, "capacity reached");
    ws.once("message", closeNow);
    setTimeout(closeNow, CAPACITY_GRACE_MS).unref();
    return Promise.resolve(null);
  }
  ws.once("close", () => void sessions.registry.release(handle.id));
  return handle.opened.catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    if (protocol === "ws") wsError(ws, "FACTORY_ERROR", message, { factory_name: entry.name });
    else ws.send(JSON.stringify(rpcError(null, RPC.SERVER_ERROR, message)));
    ws.close(1011, "environment failed to open");
    return null;
  });
}

/** `WS /ws`: OpenEnv's session protocol, the client resetting when it likes. */
function onWsSession(
  ws: WebSocket,
  sessions: ServerSessions,
  entry: CatalogEntry,
  maxBytes: number,
): void {
  const ready = socketSession(ws, sessions, entry, "ws");
  inOrder(ws, ready, (session, raw) => wsFrame(ws, sessions, entry, session, raw), maxBytes);
}

/** `WS /mcp`: a JSON-RPC request a frame, on a session whose episode starts at `seed`. */
function onMcpSocket(
  ws: WebSocket,
  sessions: ServerSessions,
  entry: CatalogEntry,
  seed: number | null,
  maxBytes: number,
): void {
  const ready = socketSession(ws, sessions, entry, "mcp").then(async (session) => {
    if (!session) return null;
    try {
      await session.reset({ seed });
    } catch (err) {
      ws.send(JSON.stringify(rpcError(null, RPC.SERVER_ERROR, errorText(err).message)));
      ws.close(1011, "environment failed to reset");
      return null;
    }
    return session;
  });
  inOrder(
    ws,
    ready,
    async (session, raw) => {
      sessions.registry.touch(session.id);
      let answer: RpcResponse | null;
      try {
        const request = parseRpc(JSON.parse(raw));
        answer =
          "method" in request
            ? await handleRpc(request, sessions.mcpContext(entry, session))
            : request;
      } catch {
        answer = rpcError(null, RPC.PARSE_ERROR, "Parse error");
      }
      sessions.registry.touch(session.id);
      if (answer && ws.readyState === ws.OPEN) ws.send(JSON.stringify(answer));
    },
    maxBytes,
  );
}
