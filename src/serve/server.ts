/**
 * @module serve/server
 * `spade serve`'s server: node:http for OpenEnv's HTTP routes and `ws` for its WebSocket session
 * protocol, every environment under its own path prefix (`/<name>/ws`, `/<name>/reset`, ...), an
 * index at `/`. Each WebSocket or MCP session opens its own sandboxed instance; a program that
 * throws or hangs fails only the call that ran it.
 */
import { randomInt, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { isSpadeError } from "../errors.js";
import { loadProgram, type SandboxBackendName } from "../sandbox/index.js";
import type { CatalogEntry } from "./catalog.js";
import { handleRpc, parseRpc, rpcError, RPC, type McpContext, type RpcResponse } from "./mcp.js";
import { openApiDocument } from "./openapi.js";
import {
  mcpTools,
  parseAction,
  parseWsMessage,
  ProtocolError,
  ResetData,
  schemas,
  toIssues,
  type WsErrorCode,
} from "./protocol.js";
import { CapacityError, SessionRegistry } from "./registry.js";
import { EnvSession, type SessionDeps } from "./session.js";

/** Options of `startServer`. */
export interface ServeOptions {
  /** The environments to serve (names unique and URL-safe; see catalog.ts). */
  entries: readonly CatalogEntry[];
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 8000. */
  port?: number;
  /** Most concurrent sessions over all environments (WebSocket and MCP). Default 64. */
  maxSessions?: number;
  /** Sessions idle this long (seconds) are closed; null never. Default 600. */
  sessionTimeoutS?: number | null;
  /** Sandbox backend for the default opener. Default isolated-vm. */
  backend?: SandboxBackendName;
  /** Overrides of the outside world (tests inject openers, seeds, ids, clock). */
  deps?: Partial<SessionDeps> & { now?: () => number };
  /** Largest HTTP body or WebSocket message, in bytes. Default 4 MiB. */
  maxMessageBytes?: number;
}

/** A running server. */
export interface ServeHandle {
  /** `http://host:port`. */
  url: string;
  port: number;
  registry: SessionRegistry;
  /** Stops listening, closes every socket and session. */
  close(): Promise<void>;
}

/** Default `--max-sessions`. */
export const DEFAULT_MAX_SESSIONS = 64;
/** Default `--session-timeout`, seconds. */
export const DEFAULT_SESSION_TIMEOUT_S = 600;

/** How long a refused connection stays open for its client to read the capacity error. */
const CAPACITY_GRACE_MS = 5000;

class FactoryError extends Error {
  constructor(override readonly cause: unknown) {
    super(
      `Environment factory failed: ${isSpadeError(cause) ? `${cause.code}: ` : ""}${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Reads a request body up to `limit` bytes; null when it is larger. */
function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(null);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function errorText(err: unknown): { message: string; spadeCode?: string } {
  if (isSpadeError(err)) return { message: `${err.code}: ${err.message}`, spadeCode: err.code };
  return { message: err instanceof Error ? err.message : String(err) };
}

/** Starts serving; resolves once listening. */
export async function startServer(options: ServeOptions): Promise<ServeHandle> {
  const backend = options.backend ?? "isolated-vm";
  const deps: SessionDeps = {
    open: options.deps?.open ?? ((entry) => loadProgram(entry.source, { backend })),
    randomSeed: options.deps?.randomSeed ?? (() => randomInt(0, 2 ** 31 - 1)),
    newId: options.deps?.newId ?? (() => randomUUID()),
  };
  const now = options.deps?.now ?? (() => Date.now());
  const timeoutS =
    options.sessionTimeoutS === undefined ? DEFAULT_SESSION_TIMEOUT_S : options.sessionTimeoutS;
  const registry = new SessionRegistry(
    options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    timeoutS === null ? null : timeoutS * 1000,
    now,
  );
  const maxBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const byName = new Map(options.entries.map((e) => [e.name, e]));
  const single = options.entries.length === 1 ? options.entries[0] : undefined;

  /** Reserves a slot (throws CapacityError synchronously), then opens the sandbox. */
  function openSession(
    entry: CatalogEntry,
    onReap: () => void,
  ): { id: string; opened: Promise<EnvSession> } {
    const id = deps.newId();
    registry.reserve(id, onReap);
    const opened = EnvSession.open(id, entry, deps).then(
      async (session) => {
        if (!registry.fill(id, session)) {
          await session.close();
          throw new FactoryError(new Error("the session was closed while it opened"));
        }
        return session;
      },
      async (err) => {
        await registry.release(id);
        throw new FactoryError(err);
      },
    );
    return { id, opened };
  }

  function mcpContext(entry: CatalogEntry, bound?: EnvSession): McpContext {
    return {
      tools: mcpTools(entry.meta.tools),
      bound,
      lookup: (id) => registry.get(id),
      create: async (seed) => {
        const { opened } = openSession(entry, () => {});
        const session = await opened;
        await session.reset({ seed });
        return session;
      },
      close: async (id) => {
        if (!registry.get(id)) return false;
        await registry.release(id);
        return true;
      },
      touch: (id) => registry.touch(id),
    };
  }

  async function onHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const parts = url.pathname.split("/").filter(Boolean);
    const method = req.method ?? "GET";
    if (parts.length === 0 && method === "GET") {
      return sendJson(res, 200, {
        environments: options.entries.map((e) => ({
          name: e.name,
          path: `/${e.name}`,
          origin: e.origin,
          skill: e.meta.skill,
          description: e.meta.description,
          maxTurns: e.meta.maxTurns,
          tools: e.meta.tools.map((t) => t.function.name),
          stats: e.stats,
        })),
        active_sessions: registry.active,
        max_sessions: registry.maxSessions,
      });
    }
    if (parts.length === 1 && parts[0] === "health" && method === "GET")
      return sendJson(res, 200, { status: "healthy" });
    let entry = parts.length > 0 ? byName.get(parts[0]!) : undefined;
    let rest = parts.slice(1);
    // A server of one environment also serves it at the root, where OpenEnv clients look by default.
    if (!entry && single && parts.length === 1) [entry, rest] = [single, parts];
    if (!entry)
      return sendJson(res, 404, {
        detail: `Not Found: no environment at ${url.pathname}; GET / lists them`,
      });
    const route = `${method} /${rest.join("/")}`;
    switch (route) {
      case "GET /":
      case "GET /metadata":
        return sendJson(res, 200, metadata(entry));
      case "GET /health":
        return sendJson(res, 200, { status: "healthy" });
      case "GET /schema":
        return sendJson(res, 200, schemas());
      case "GET /state":
        return sendJson(res, 200, { episode_id: null, step_count: 0 });
      case "GET /openapi.json":
        return sendJson(res, 200, openApiDocument(entry.name, entry.meta.description));
      case "POST /reset":
        return httpReset(entry, req, res);
      case "POST /step":
        return httpStep(req, res);
      case "POST /mcp":
        return httpMcp(entry, req, res, seedParam(url));
      case "DELETE /mcp": {
        const sid = req.headers["mcp-session-id"];
        if (typeof sid !== "string" || !registry.get(sid))
          return sendJson(res, 404, rpcError(null, RPC.INVALID_PARAMS, "Unknown MCP session"));
        await registry.release(sid);
        return sendJson(res, 200, { closed: true });
      }
      case "GET /mcp":
        return sendJson(
          res,
          405,
          { detail: "GET /mcp (server-sent events) is not offered; POST JSON-RPC requests" },
          { allow: "POST, DELETE" },
        );
      default:
        return sendJson(res, 404, { detail: `Not Found: ${method} ${url.pathname}` });
    }
  }

  async function jsonBody(
    req: IncomingMessage,
    res: ServerResponse,
    allowEmpty: boolean,
  ): Promise<{ value: unknown } | null> {
    const text = await readBody(req, maxBytes);
    if (text === null) {
      sendJson(res, 413, { detail: `request body over ${maxBytes} bytes` });
      return null;
    }
    if (text.trim() === "" && allowEmpty) return { value: {} };
    try {
      return { value: JSON.parse(text) };
    } catch (err) {
      sendJson(res, 422, {
        detail: [
          {
            type: "json_invalid",
            loc: ["body"],
            msg: `JSON decode error: ${(err as Error).message}`,
          },
        ],
      });
      return null;
    }
  }

  async function httpReset(
    entry: CatalogEntry,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const body = await jsonBody(req, res, true);
    if (!body) return;
    const parsed = ResetData.safeParse(body.value);
    if (!parsed.success) return sendJson(res, 422, { detail: toIssues(parsed.error, ["body"]) });
    let session: EnvSession | null = null;
    try {
      session = await EnvSession.open(deps.newId(), entry, deps);
      return sendJson(res, 200, await session.reset(parsed.data));
    } catch (err) {
      const e = errorText(err);
      return sendJson(res, 500, { detail: e.message, code: e.spadeCode ?? null });
    } finally {
      await session?.close();
    }
  }

  async function httpStep(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await jsonBody(req, res, false);
    if (!body) return;
    const value = body.value as { action?: unknown } | null;
    if (
      typeof value !== "object" ||
      value === null ||
      typeof value.action !== "object" ||
      value.action === null ||
      Array.isArray(value.action)
    ) {
      return sendJson(res, 422, {
        detail: [
          { type: "missing", loc: ["body", "action"], msg: "Field required: an action object" },
        ],
      });
    }
    try {
      parseAction(value.action, () => "call_1", ["body", "action"]);
    } catch (err) {
      if (err instanceof ProtocolError) return sendJson(res, 422, { detail: err.issues });
      throw err;
    }
    return sendJson(res, 409, {
      detail:
        "E_ENV_CONTRACT: step before reset: OpenEnv's HTTP /step runs on a fresh instance with no episode; play episodes over WS /ws (GenericEnvClient does)",
      code: "E_ENV_CONTRACT",
    });
  }

  async function httpMcp(
    entry: CatalogEntry,
    req: IncomingMessage,
    res: ServerResponse,
    seed: number | null,
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
    const ctx = mcpContext(entry);
    const headers: Record<string, string> = {};
    if (typeof sid === "string") {
      const bound = registry.get(sid);
      if (!bound)
        return sendJson(
          res,
          404,
          rpcError(request.id, RPC.INVALID_PARAMS, `Unknown MCP session ${sid}; initialize again`),
        );
      ctx.bound = bound;
      registry.touch(sid);
    } else if (
      request.method === "initialize" &&
      String(req.headers.accept ?? "").includes("text/event-stream")
    ) {
      // A Streamable HTTP client (the MCP SDKs): the session it will name in Mcp-Session-Id.
      try {
        const session = await ctx.create(seed);
        headers["mcp-session-id"] = session.id;
      } catch (err) {
        if (err instanceof CapacityError)
          return sendJson(
            res,
            200,
            rpcError(request.id, RPC.SERVER_ERROR, err.message, {
              active_sessions: err.activeSessions,
              max_sessions: err.maxSessions,
            }),
          );
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

  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
  const sockets = new Set<WebSocket>();

  function wsError(
    ws: WebSocket,
    code: WsErrorCode,
    message: string,
    extra: Record<string, unknown> = {},
  ): void {
    if (ws.readyState === ws.OPEN)
      ws.send(JSON.stringify({ type: "error", data: { message, code, ...extra } }));
  }

  /** Opens a session for a socket; on capacity or factory failure says so and closes. */
  function socketSession(
    ws: WebSocket,
    entry: CatalogEntry,
    protocol: "ws" | "mcp",
  ): Promise<EnvSession | null> {
    const reaped = () => {
      const message = `session idle for more than ${timeoutS} s; it was closed`;
      if (protocol === "ws") wsError(ws, "SESSION_ERROR", message);
      ws.close(1000, "idle session closed");
    };
    let handle: { id: string; opened: Promise<EnvSession> };
    try {
      handle = openSession(entry, reaped);
    } catch (err) {
      if (!(err instanceof CapacityError)) throw err;
      if (protocol === "ws")
        wsError(ws, "CAPACITY_REACHED", err.message, {
          active_sessions: err.activeSessions,
          max_sessions: err.maxSessions,
        });
      else
        ws.send(
          JSON.stringify(
            rpcError(null, RPC.SERVER_ERROR, err.message, {
              active_sessions: err.activeSessions,
              max_sessions: err.maxSessions,
            }),
          ),
        );
      // Closed at the client's first message (or after a grace period), not at once: OpenEnv's
      // client sends its reset right after connecting, and must read the error as the answer
      // rather than find the connection already closed.
      const closeNow = () => ws.close(1000, "capacity reached");
      ws.once("message", closeNow);
      setTimeout(closeNow, CAPACITY_GRACE_MS).unref();
      return Promise.resolve(null);
    }
    ws.once("close", () => void registry.release(handle.id));
    return handle.opened.catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (protocol === "ws") wsError(ws, "FACTORY_ERROR", message, { factory_name: entry.name });
      else ws.send(JSON.stringify(rpcError(null, RPC.SERVER_ERROR, message)));
      ws.close(1011, "environment failed to open");
      return null;
    });
  }

  function onWsSession(ws: WebSocket, entry: CatalogEntry): void {
    const ready = socketSession(ws, entry, "ws");
    let chain: Promise<unknown> = ready;
    ws.on("message", (data, isBinary) => {
      const raw = isBinary ? "" : (data as Buffer).toString("utf8");
      chain = chain.then(async () => {
        const session = await ready;
        if (session && ws.readyState === ws.OPEN) await wsMessage(ws, entry, session, raw);
      });
    });
  }

  async function wsMessage(
    ws: WebSocket,
    entry: CatalogEntry,
    session: EnvSession,
    raw: string,
  ): Promise<void> {
    registry.touch(session.id);
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
            "method" in request ? await handleRpc(request, mcpContext(entry, session)) : request;
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
      registry.touch(session.id);
    }
  }

  function onMcpSocket(ws: WebSocket, entry: CatalogEntry, seed: number | null): void {
    const ready = socketSession(ws, entry, "mcp").then(async (session) => {
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
    let chain: Promise<unknown> = ready;
    ws.on("message", (data, isBinary) => {
      const raw = isBinary ? "" : (data as Buffer).toString("utf8");
      chain = chain.then(async () => {
        const session = await ready;
        if (!session || ws.readyState !== ws.OPEN) return;
        registry.touch(session.id);
        let answer: RpcResponse | null;
        try {
          const request = parseRpc(JSON.parse(raw));
          answer =
            "method" in request ? await handleRpc(request, mcpContext(entry, session)) : request;
        } catch {
          answer = rpcError(null, RPC.PARSE_ERROR, "Parse error");
        }
        registry.touch(session.id);
        if (answer && ws.readyState === ws.OPEN) ws.send(JSON.stringify(answer));
      });
    });
  }

  const server: Server = createServer((req, res) => {
    onHttp(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { detail: errorText(err).message });
      else res.destroy();
    });
  });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const parts = url.pathname.split("/").filter(Boolean);
    const entry =
      parts.length === 2 ? byName.get(parts[0]!) : parts.length === 1 ? single : undefined;
    const kind = parts.at(-1);
    if (!entry || (kind !== "ws" && kind !== "mcp")) {
      socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on("close", () => sockets.delete(ws));
      ws.on("error", () => ws.terminate());
      if (kind === "ws") onWsSession(ws, entry);
      else onMcpSocket(ws, entry, seedParam(url));
    });
  });

  const intervalMs = timeoutS === null ? null : Math.min(5000, Math.max(50, (timeoutS * 1000) / 4));
  const reaper =
    intervalMs === null ? null : setInterval(() => void registry.reapIdle(), intervalMs);
  reaper?.unref();

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8000, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? "127.0.0.1";
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    registry,
    async close() {
      if (reaper) clearInterval(reaper);
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await registry.closeAll();
    },
  };
}

/** The `?seed=N` of an MCP URL: the seed of the episode its session starts; null when absent or invalid. */
function seedParam(url: URL): number | null {
  const seed = Number(url.searchParams.get("seed"));
  return url.searchParams.has("seed") && Number.isSafeInteger(seed) && seed >= 0 ? seed : null;
}

/** OpenEnv's `EnvironmentMetadata` for an entry. */
function metadata(entry: CatalogEntry): Record<string, unknown> {
  const tools = entry.meta.tools
    .map((t) => `- \`${t.function.name}\`: ${t.function.description}`)
    .join("\n");
  const stats = entry.stats
    ? `\n\nFrom run ${entry.from} (${entry.stats.envId}): regret ${entry.stats.regret ?? "n/a"}, win rate ${entry.stats.winRate ?? "n/a"}, ${entry.stats.plays} plays.`
    : "";
  return {
    name: entry.name,
    description: entry.meta.description,
    readme_content: `# ${entry.meta.name}\n\n${entry.meta.description}\n\nSkill: ${entry.meta.skill}. At most ${entry.meta.maxTurns} turns.${tools ? `\n\nTools:\n${tools}` : ""}${stats}\n\nActions: {"text": "..."} for moves and final answers; {"type": "call_tool", "tool_name": ..., "arguments": {...}} for tools.`,
    version: "0.1.0",
    author: null,
    documentation_url: null,
  };
}
