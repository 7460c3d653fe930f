/**
 * @module envs/openenv-ref
 * Where a remote OpenEnv environment is and what it is: `openenv+ws://HOST:PORT/NAME` parsed into
 * its socket and HTTP routes, and its meta read over HTTP (`/NAME/metadata`, the tools from MCP
 * `tools/list`, skill and maxTurns from a `spade serve` index), each answer within a timeout and
 * a size cap, and from that server only: a redirect is not followed (see `getJson`). The session
 * itself is envs/openenv-remote.ts.
 */
import { constants } from "node:buffer";
import type { EnvMeta, ToolSpec } from "../env/types.js";
import { toolProblems } from "../env/index.js";
import { SpadeError } from "../errors.js";

/** The scheme prefix of remote OpenEnv references. */
export const OPENENV_SCHEMES = ["openenv+ws://", "openenv+wss://"] as const;

/** Turns of a remote environment that says nothing about its length. */
export const DEFAULT_REMOTE_MAX_TURNS = 30;

/** How long one exchange with the server may take (HTTP answer, handshake, reply): 60 s. */
export const DEFAULT_REMOTE_TIMEOUT_MS = 60_000;

/** Largest answer of the server's HTTP routes (metadata, MCP tools, the index): 4 MiB. */
export const MAX_REMOTE_META_BYTES = 4 * 1024 * 1024;

/**
 * Largest WebSocket message of a session, a reply included, unless the reference's
 * `?max_message_bytes=` says otherwise: 8 MiB. Every episode in flight may hold one (32 at the
 * default `concurrency`), and what a legitimate reply carries is bounded: `spade serve`'s is at
 * most about 2 MiB (a sandbox answer of at most 1 MiB, `outputBytes`, plus a tool result repeated
 * in `result`, or a hint and the tools on reset), and its text goes to a model whose context
 * holds at most about 4 MiB of text at 1M tokens; a longer observation ends the episode as a
 * context overflow anyway.
 */
export const DEFAULT_REMOTE_MESSAGE_BYTES = 8 * 1024 * 1024;

/** Most `?max_message_bytes=` may be: V8's longest string (a message is decoded into one). */
export const MAX_REMOTE_MESSAGE_BYTES: number = constants.MAX_STRING_LENGTH;

/** True when `ref` names a remote OpenEnv environment. */
export function isOpenEnvRef(ref: string): boolean {
  return OPENENV_SCHEMES.some((s) => ref.startsWith(s));
}

/** A parsed reference: where the socket and the HTTP routes are, and how to send text. */
export interface OpenEnvTarget {
  /** `ws://HOST:PORT/NAME/ws`. */
  wsUrl: string;
  /** `http://HOST:PORT/NAME`. */
  httpBase: string;
  /** `http://HOST:PORT` (a `spade serve` index lives at its `/`). */
  serverBase: string;
  name: string;
  textField: string;
  maxTurns: number | null;
  /** Largest WebSocket message accepted (`?max_message_bytes=`). Default DEFAULT_REMOTE_MESSAGE_BYTES. */
  maxMessageBytes: number;
}

/**
 * Parses `openenv+ws://HOST:PORT/NAME[?text_field=F&max_turns=N&max_message_bytes=B]`; E_CONFIG
 * when malformed.
 */
export function parseOpenEnvRef(ref: string): OpenEnvTarget {
  const bad = (why: string) =>
    new SpadeError(
      "E_CONFIG",
      `${JSON.stringify(ref)} is not a remote OpenEnv environment: ${why}`,
      { nextStep: "write it as openenv+ws://HOST:PORT/NAME" },
    );
  if (!isOpenEnvRef(ref)) throw bad("it must start with openenv+ws:// or openenv+wss://");
  let url: URL;
  try {
    url = new URL(ref.slice("openenv+".length));
  } catch {
    throw bad("it is not a URL");
  }
  const path = url.pathname.replace(/\/+$/, "");
  const name = path.split("/").filter(Boolean).at(-1) ?? "";
  const maxTurnsText = url.searchParams.get("max_turns");
  const maxTurns = maxTurnsText === null ? null : Number(maxTurnsText);
  if (maxTurns !== null && (!Number.isInteger(maxTurns) || maxTurns < 1))
    throw bad("max_turns must be a positive integer");
  const maxBytesText = url.searchParams.get("max_message_bytes");
  const maxMessageBytes =
    maxBytesText === null ? DEFAULT_REMOTE_MESSAGE_BYTES : Number(maxBytesText);
  if (
    !Number.isInteger(maxMessageBytes) ||
    maxMessageBytes < 1 ||
    maxMessageBytes > MAX_REMOTE_MESSAGE_BYTES
  )
    throw bad(`max_message_bytes must be an integer from 1 to ${MAX_REMOTE_MESSAGE_BYTES}`);
  const http = url.protocol === "wss:" ? "https:" : "http:";
  return {
    wsUrl: `${url.protocol}//${url.host}${path}/ws`,
    httpBase: `${http}//${url.host}${path}`,
    serverBase: `${http}//${url.host}`,
    name: name || "remote",
    textField: url.searchParams.get("text_field") || "text",
    maxTurns,
    maxMessageBytes,
  };
}

/** How `remoteMeta` reaches the server. */
export interface RemoteMetaOptions {
  /** `fetch` to use. Default the global one. */
  fetch?: typeof fetch;
  /** Each answer, body included, within this. Default DEFAULT_REMOTE_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * The JSON answer at `url` (POSTing `body` if given), read within `timeoutMs` and at most
 * MAX_REMOTE_META_BYTES. A redirect is not followed, to another host or within this one: the
 * session's WebSocket (envs/openenv-remote.ts) follows none either, so meta read elsewhere could
 * describe something other than what is played, and a hostile server could point SPADE's requests
 * at any address it can reach. E_REMOTE_ENV naming where it pointed.
 */
async function getJson(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
  body?: unknown,
): Promise<unknown> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetchFn(url, {
      signal,
      redirect: "manual",
      ...(body === undefined
        ? {}
        : {
            method: "POST",
            body: JSON.stringify(body),
            headers: { "content-type": "application/json" },
          }),
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      if (res.status >= 300 && res.status < 400) throw redirected(url, res);
      throw new Error(`HTTP ${res.status}`);
    }
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    for await (const chunk of res.body ?? []) {
      bytes += chunk.byteLength;
      if (bytes > MAX_REMOTE_META_BYTES)
        throw new Error(`an answer of more than ${MAX_REMOTE_META_BYTES} bytes`);
      chunks.push(chunk);
    }
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    throw signal.aborted ? new Error(`no answer within ${timeoutMs} ms`) : err;
  }
}

/** The E_REMOTE_ENV of a redirect, naming where it pointed (resolved against `url`, cut to 200 characters). */
function redirected(url: string, res: Response): SpadeError {
  const location = res.headers.get("location");
  let target = location === null ? "nowhere (no Location header)" : location;
  try {
    if (location !== null) target = new URL(location, url).href;
  } catch {
    // not a URL: named as sent
  }
  return new SpadeError(
    "E_REMOTE_ENV",
    `${url} answered HTTP ${res.status}, a redirect to ${JSON.stringify(target.slice(0, 200))}; remote environments are read from the server they name only, so it was not followed`,
    { nextStep: "if that is where the environment is served, name that server in the reference" },
  );
}

/** The environment's meta, read over HTTP (metadata, MCP tools, a `spade serve` index if any). */
export async function remoteMeta(
  target: OpenEnvTarget,
  options: RemoteMetaOptions = {},
): Promise<EnvMeta> {
  const fetchFn = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  let metadata: { name?: unknown; description?: unknown };
  try {
    metadata = (await getJson(
      fetchFn,
      `${target.httpBase}/metadata`,
      timeoutMs,
    )) as typeof metadata;
  } catch (err) {
    if (err instanceof SpadeError) throw err;
    throw new SpadeError("E_REMOTE_ENV", `${target.httpBase}/metadata: ${(err as Error).message}`, {
      cause: err,
      nextStep: "check that the OpenEnv server runs and serves this environment",
    });
  }
  let listed: unknown = [];
  try {
    const answer = (await getJson(fetchFn, `${target.httpBase}/mcp`, timeoutMs, {
      jsonrpc: "2.0",
      method: "tools/list",
      params: {},
      id: 1,
    })) as { result?: { tools?: unknown } } | null;
    listed = answer?.result?.tools ?? [];
  } catch {
    listed = []; // a server without MCP (or one that redirects it): a text-only environment
  }
  const tools = remoteTools(target, listed);
  let indexed: { skill?: string; maxTurns?: number } | undefined;
  try {
    const index = (await getJson(fetchFn, `${target.serverBase}/`, timeoutMs)) as {
      environments?: Array<{ name: string; skill?: string; maxTurns?: number }>;
    };
    indexed = index.environments?.find((e) => e.name === target.name);
  } catch {
    indexed = undefined; // not a `spade serve` server
  }
  return {
    name: typeof metadata.name === "string" && metadata.name ? metadata.name : target.name,
    skill: indexed?.skill ?? "Remote",
    description: typeof metadata.description === "string" ? metadata.description : "",
    maxTurns: target.maxTurns ?? indexed?.maxTurns ?? DEFAULT_REMOTE_MAX_TURNS,
    tools,
  };
}

/**
 * MCP tools (`{name, description?, inputSchema?}`) as SPADE's ToolSpecs, `final_answer` left out
 * (SPADE answers through its own). They are checked as an environment's `meta.tools` are
 * (`toolProblems`): a remote tool reaches the model's tool list and the rollout as they do.
 * E_REMOTE_ENV when the list or a tool has another shape.
 */
function remoteTools(target: OpenEnvTarget, listed: unknown): ToolSpec[] {
  const refuse = (why: string) =>
    new SpadeError("E_REMOTE_ENV", `${target.httpBase}/mcp: tools/list answered ${why}`, {
      nextStep:
        "fix the server's tools: each needs a name (letters, digits, _ or -), a string description and an object inputSchema",
    });
  if (!Array.isArray(listed)) throw refuse("`tools` that is not an array");
  const specs = listed.map((t: unknown) => {
    if (typeof t !== "object" || t === null || Array.isArray(t)) return t;
    const { name, description, inputSchema } = t as Record<string, unknown>;
    return {
      type: "function",
      function: {
        name,
        description: description === undefined ? "" : description,
        parameters: inputSchema === undefined ? { type: "object", properties: {} } : inputSchema,
      },
    };
  });
  const problems = toolProblems(specs, "tools");
  if (problems.length > 0)
    throw refuse(
      `tools SPADE cannot use (name, description and inputSchema are read as function.name, .description and .parameters): ${problems.join("; ")}`,
    );
  return (specs as ToolSpec[]).filter((t) => t.function.name !== "final_answer");
}
