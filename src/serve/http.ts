/**
 * @module serve/http
 * OpenEnv's HTTP routes as `spade serve` answers them: the index at `/` and `/health`, and per
 * environment `/metadata`, `/schema`, `/state`, `/openapi.json` and the stateless `/reset` and
 * `/step`, with pydantic-shaped 422s; `/mcp` goes to mcp-http.ts.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CatalogEntry } from "./catalog.js";
import { readBody, sendJson } from "../net/index.js";
import { urlSeed } from "./mcp.js";
import { deleteMcp, getMcp, postMcp } from "./mcp-http.js";
import { openApiDocument } from "./openapi.js";
import { type EntryPaths, requestPath } from "./paths.js";
import { errorText, parseAction, ProtocolError, ResetData, schemas, toIssues } from "./protocol.js";
import type { SessionRegistry } from "./registry.js";
import type { EnvSession } from "./session.js";
import type { ServerSessions } from "./sessions.js";

/** What the HTTP routes answer from. */
export interface HttpContext {
  sessions: ServerSessions;
  paths: EntryPaths;
  /** Largest request body, in bytes. */
  maxBytes: number;
}

/** What a route of one environment gets: the server's context, the entry and the request. */
interface EntryRequest {
  ctx: HttpContext;
  entry: CatalogEntry;
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * The server's request listener: routes each request; a route that throws is answered 500 with
 * the error's text (or its connection dropped, once the headers are out).
 */
export function httpHandler(ctx: HttpContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    onHttp(ctx, req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { detail: errorText(err).message });
      else res.destroy();
    });
  };
}

async function onHttp(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = requestPath(req);
  if (!path) return sendJson(res, 400, { detail: "Bad Request: the request target is not a URL" });
  const { url, parts } = path;
  const method = req.method ?? "GET";
  if (parts.length === 0 && method === "GET")
    return sendJson(res, 200, index(ctx.paths.entries, ctx.sessions.registry));
  if (parts.length === 1 && parts[0] === "health" && method === "GET")
    return sendJson(res, 200, { status: "healthy" });
  const target = ctx.paths.route(parts);
  if (!target)
    return sendJson(res, 404, {
      detail: `Not Found: no environment at ${url.pathname}; GET / lists them`,
    });
  const { entry, rest } = target;
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
      return httpReset({ ctx, entry, req, res });
    case "POST /step":
      return httpStep({ ctx, entry, req, res });
    case "POST /mcp":
      return postMcp(ctx.sessions, entry, req, res, urlSeed(url), ctx.maxBytes);
    case "DELETE /mcp":
      return deleteMcp(ctx.sessions, req, res);
    case "GET /mcp":
      return getMcp(res);
    default:
      return sendJson(res, 404, { detail: `Not Found: ${method} ${url.pathname}` });
  }
}

/** `GET /`: the served environments and the session counts. */
function index(
  entries: readonly CatalogEntry[],
  registry: SessionRegistry,
): Record<string, unknown> {
  return {
    environments: entries.map((e) => ({
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
  };
}

/** The JSON body of a request; null once answered 413 (too large) or 422 (not JSON). */
async function jsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
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

/** `POST /reset`: a fresh instance, reset and closed; its first observation. */
async function httpReset({ ctx, entry, req, res }: EntryRequest): Promise<void> {
  const body = await jsonBody(req, res, ctx.maxBytes, true);
  if (!body) return;
  const parsed = ResetData.safeParse(body.value);
  if (!parsed.success) return sendJson(res, 422, { detail: toIssues(parsed.error, ["body"]) });
  let session: EnvSession | null = null;
  try {
    session = await ctx.sessions.openDetached(entry);
    return sendJson(res, 200, await session.reset(parsed.data));
  } catch (err) {
    const e = errorText(err);
    return sendJson(res, 500, { detail: e.message, code: e.spadeCode ?? null });
  } finally {
    await session?.close();
  }
}

/** `POST /step`: validates the action, then 409, since a fresh instance has no episode. */
async function httpStep({ ctx, req, res }: EntryRequest): Promise<void> {
  const body = await jsonBody(req, res, ctx.maxBytes, false);
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
