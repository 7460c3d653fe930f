// The server in-process with real sandboxes: OpenEnv's HTTP routes, the WS session protocol and its
// error codes, hostile programs confined to their session, capacity and idle reaping, MCP JSON-RPC.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect as connectTcp } from "node:net";
import WebSocket from "ws";
import { makeProgram } from "../sandbox/testing/programs.js";
import { catalogSources, loadCatalog, type CatalogEntry } from "./catalog.js";
import { startServer, type ServeHandle } from "./server.js";

/** A WebSocket client that queues what the server sends. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  const inbox: unknown[] = [];
  const waiters: Array<(m: unknown) => void> = [];
  let closed: { code: number; reason: string } | null = null;
  ws.on("message", (data) => {
    const msg = JSON.parse(data.toString());
    const w = waiters.shift();
    if (w) w(msg);
    else inbox.push(msg);
  });
  const closedP = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve((closed = { code, reason: reason.toString() }))),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const next = (): Promise<any> =>
    inbox.length > 0
      ? Promise.resolve(inbox.shift())
      : new Promise((resolve) => waiters.push(resolve));
  return {
    ws,
    next,
    send: (m: unknown) => ws.send(typeof m === "string" ? m : JSON.stringify(m)),
    ask: async (m: unknown): Promise<any> => {
      ws.send(typeof m === "string" ? m : JSON.stringify(m));
      return next();
    },
    closed: closedP,
    get isClosed() {
      return closed !== null;
    },
    close: () => ws.close(),
  };
}

const HOSTILE = makeProgram({
  meta: JSON.stringify({
    name: "hostile-test",
    skill: "Pattern Recognition",
    description: "Test double: throws or spins on command.",
    maxTurns: 3,
    tools: [],
  }),
  step:
    'if (action.answer === "boom") throw new Error("kaboom"); if (action.answer === "hang") { while (true) {} } ' +
    'this.turns++; const win = action.answer === "win"; return { observation: "turn " + this.turns + " of seed " + this.seed, reward: win ? 1 : 0, terminated: win, truncated: false, info: { turns: this.turns } };',
  reset:
    'this.turns = 0; this.seed = seed; return { observation: "seed " + seed, info: { seed: seed } };',
});

let entries: CatalogEntry[];
let server: ServeHandle;
let base: string;

beforeAll(async () => {
  entries = await loadCatalog([
    { name: "", source: HOSTILE, origin: "file", from: "hostile.js", stats: null },
    ...catalogSources(["bank-transfer"]),
  ]);
  server = await startServer({ entries, port: 0, maxSessions: 4, sessionTimeoutS: null });
  base = server.url;
});
afterAll(() => server.close());

const wsUrl = (name: string, kind = "ws") => `${base.replace("http", "ws")}/${name}/${kind}`;

/** The status line the server answers a raw HTTP request with (`fetch` cannot send `GET //[`). */
function statusLine(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(server.port, "127.0.0.1", () => socket.write(request));
    let text = "";
    socket.on("data", (chunk) => (text += chunk));
    socket.on("close", () => resolve(text.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

describe("HTTP routes", () => {
  it("names environments by meta (or library name) and lists them at /", async () => {
    expect(entries.map((e) => e.name)).toEqual(["hostile-test", "bank-transfer"]);
    const index = await jsonOf(fetch(`${base}/`));
    expect(index.environments.map((e: any) => [e.name, e.path, e.origin, e.maxTurns])).toEqual([
      ["hostile-test", "/hostile-test", "file", 3],
      ["bank-transfer", "/bank-transfer", "library", 16],
    ]);
    expect(index.max_sessions).toBe(4);
  });

  it("answers /health, /metadata, /schema, /state and /openapi.json as OpenEnv's server does", async () => {
    expect(await jsonOf(fetch(`${base}/hostile-test/health`))).toEqual({ status: "healthy" });
    const meta = await jsonOf(fetch(`${base}/hostile-test/metadata`));
    expect(Object.keys(meta).sort()).toEqual([
      "author",
      "description",
      "documentation_url",
      "name",
      "readme_content",
      "version",
    ]);
    expect(meta.name).toBe("hostile-test");
    expect(meta.description).toBe("Test double: throws or spins on command.");
    const schema = await jsonOf(fetch(`${base}/hostile-test/schema`));
    expect(Object.keys(schema).sort()).toEqual(["action", "observation", "state"]);
    expect(await jsonOf(fetch(`${base}/hostile-test/state`))).toEqual({
      episode_id: null,
      step_count: 0,
    });
    const api = await jsonOf(fetch(`${base}/hostile-test/openapi.json`));
    expect(api.info.version).toBe("1.0.0");
    expect(Object.keys(api.paths)).toEqual(
      expect.arrayContaining([
        "/reset",
        "/step",
        "/state",
        "/health",
        "/metadata",
        "/schema",
        "/mcp",
      ]),
    );
    expect((await fetch(`${base}/nope/health`)).status).toBe(404);
  });

  it("a request target that is not a URL is 400, as a request and as an upgrade (it ended the process)", async () => {
    const upgrade =
      "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    expect(await statusLine("GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).toBe(
      "HTTP/1.1 400 Bad Request",
    );
    expect(await statusLine(`GET //[ HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`)).toBe(
      "HTTP/1.1 400 Bad Request",
    );
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it("a body over the cap is answered 413 (the connection was reset before the answer)", async () => {
    const big = JSON.stringify({ seed: 1, pad: "x".repeat(5 * 1024 * 1024) }); // over 4 MiB
    const answers = await Promise.all(
      ["reset", "step"].map(async (route) => {
        const res = await fetch(`${base}/hostile-test/${route}`, { method: "POST", body: big });
        return [res.status, await res.json()];
      }),
    );
    expect(answers).toEqual([
      [413, { detail: "request body over 4194304 bytes" }],
      [413, { detail: "request body over 4194304 bytes" }],
    ]);
  });

  it("POST /reset plays a fresh instance; bad bodies are 422; /step without an episode is 409 E_ENV_CONTRACT", async () => {
    const reset = await fetch(`${base}/hostile-test/reset`, {
      method: "POST",
      body: JSON.stringify({ seed: 7 }),
    });
    expect(await reset.json()).toEqual({
      observation: {
        text: "seed 7",
        tool_results: [],
        info: { seed: 7 },
        terminated: false,
        truncated: false,
        step_count: 0,
      },
      reward: null,
      done: false,
    });
    const negative = await fetch(`${base}/hostile-test/reset`, {
      method: "POST",
      body: JSON.stringify({ seed: -1 }),
    });
    expect(negative.status).toBe(422);
    expect((await jsonOf(negative)).detail[0].loc).toEqual(["body", "seed"]);
    expect(
      (await fetch(`${base}/hostile-test/reset`, { method: "POST", body: "{nope" })).status,
    ).toBe(422);
    const badAction = await fetch(`${base}/hostile-test/step`, {
      method: "POST",
      body: JSON.stringify({ action: { text: 5 } }),
    });
    expect(badAction.status).toBe(422);
    expect((await jsonOf(badAction)).detail[0].loc).toEqual(["body", "action", "text"]);
    const step = await fetch(`${base}/hostile-test/step`, {
      method: "POST",
      body: JSON.stringify({ action: { text: "hi" } }),
    });
    expect(step.status).toBe(409);
    expect((await jsonOf(step)).code).toBe("E_ENV_CONTRACT");
  });
});

describe("WS /ws session protocol", () => {
  it("reset, step, state, close; the episode ends at maxTurns as truncated", async () => {
    const c = await connect(wsUrl("hostile-test"));
    const first = await c.ask({ type: "reset", data: { seed: 11, episode_id: "ep-1" } });
    expect(first).toEqual({
      type: "observation",
      data: {
        observation: {
          text: "seed 11",
          tool_results: [],
          info: { seed: 11 },
          terminated: false,
          truncated: false,
          step_count: 0,
        },
        reward: null,
        done: false,
      },
    });
    const s1 = await c.ask({ type: "step", data: { text: "guess" } });
    expect(s1.data).toEqual({
      observation: {
        text: "turn 1 of seed 11",
        tool_results: [],
        info: { turns: 1 },
        terminated: false,
        truncated: false,
        step_count: 1,
      },
      reward: 0,
      done: false,
    });
    await c.ask({ type: "step", data: { text: "again" } });
    const s3 = await c.ask({ type: "step", data: { text: "third" } });
    expect([s3.data.done, s3.data.observation.truncated, s3.data.observation.step_count]).toEqual([
      true,
      true,
      3,
    ]);
    const over = await c.ask({ type: "step", data: { text: "fourth" } });
    expect(over).toMatchObject({
      type: "error",
      data: { code: "EXECUTION_ERROR", spade_code: "E_ENV_CONTRACT" },
    });
    expect(over.data.message).toContain("the episode is over");
    expect(await c.ask({ type: "state" })).toEqual({
      type: "state",
      data: {
        episode_id: "ep-1",
        step_count: 3,
        env: "hostile-test",
        seed: 11,
        done: true,
        episode_return: 0,
      },
    });
    c.send({ type: "close" });
    expect((await c.closed).code).toBe(1000);
  });

  it("answers bad input with OpenEnv's codes and goes on", async () => {
    const c = await connect(wsUrl("hostile-test"));
    expect((await c.ask("{not json")).data.code).toBe("INVALID_JSON");
    expect((await c.ask({ type: "dance" })).data).toEqual({
      message: "Unknown message type: dance",
      code: "UNKNOWN_TYPE",
    });
    expect((await c.ask({ data: {} })).data.code).toBe("UNKNOWN_TYPE");
    const noData = await c.ask({ type: "step" });
    expect(noData.data.code).toBe("VALIDATION_ERROR");
    expect(noData.data.errors[0].loc).toEqual(["data"]);
    const before = await c.ask({ type: "step", data: { text: "early" } });
    expect(before.data).toMatchObject({ code: "EXECUTION_ERROR", spade_code: "E_ENV_CONTRACT" });
    expect(before.data.message).toContain("step before reset");
    await c.ask({ type: "reset", data: { seed: 1 } });
    const wrongShape = await c.ask({ type: "step", data: { text: ["a"] } });
    expect(wrongShape.data.code).toBe("VALIDATION_ERROR");
    expect(wrongShape.data.errors[0].loc).toEqual(["data", "text"]);
    expect((await c.ask({ type: "step", data: { type: "call_tool" } })).data.errors[0].loc).toEqual(
      ["data", "tool_name"],
    );
    expect((await c.ask({ type: "reset", data: { seed: "x" } })).data.code).toBe(
      "VALIDATION_ERROR",
    );
    const ok = await c.ask({ type: "step", data: { text: "\\boxed{win}" } });
    expect([ok.type, ok.data.reward, ok.data.done]).toEqual(["observation", 1, true]);
    c.close();
  });

  it("a program that throws or hangs fails only its own call; other sessions play on", async () => {
    const bad = await connect(wsUrl("hostile-test"));
    const good = await connect(wsUrl("hostile-test"));
    await bad.ask({ type: "reset", data: { seed: 2 } });
    await good.ask({ type: "reset", data: { seed: 3 } });
    const boom = await bad.ask({ type: "step", data: { text: "\\boxed{boom}" } });
    expect(boom.data).toMatchObject({ code: "EXECUTION_ERROR", spade_code: "E_SANDBOX_THROW" });
    expect(boom.data.message).toContain("kaboom");
    await bad.ask({ type: "reset", data: { seed: 2 } });
    const hang = bad.ask({ type: "step", data: { text: "\\boxed{hang}" } });
    const meanwhile = await good.ask({ type: "step", data: { text: "move" } });
    expect(meanwhile.data.observation.text).toBe("turn 1 of seed 3");
    expect((await hang).data).toMatchObject({
      code: "EXECUTION_ERROR",
      spade_code: "E_SANDBOX_TIMEOUT",
    });
    expect((await bad.ask({ type: "step", data: { text: "x" } })).data.spade_code).toBe(
      "E_ENV_CONTRACT",
    );
    const again = await bad.ask({ type: "reset", data: { seed: 4 } });
    expect(again.data.observation.text).toBe("seed 4");
    expect((await bad.ask({ type: "step", data: { text: "\\boxed{win}" } })).data.reward).toBe(1);
    expect((await good.ask({ type: "step", data: { text: "move" } })).data.observation.text).toBe(
      "turn 2 of seed 3",
    );
    bad.close();
    good.close();
    await Promise.all([bad.closed, good.closed]);
  });

  it("the session beyond --max-sessions gets CAPACITY_REACHED, closed at its first message; a freed slot is reused", async () => {
    await waitFor(() => server.registry.active === 0);
    const held = await Promise.all([0, 1, 2, 3].map(() => connect(wsUrl("hostile-test"))));
    await Promise.all(held.map((c) => c.ask({ type: "reset", data: { seed: 1 } })));
    const extra = await connect(wsUrl("hostile-test"));
    expect(await extra.next()).toEqual({
      type: "error",
      data: {
        message: "Server at capacity: 4/4 sessions active. Close a session or retry later.",
        code: "CAPACITY_REACHED",
        active_sessions: 4,
        max_sessions: 4,
      },
    });
    extra.send({ type: "reset", data: {} });
    expect(await extra.closed).toEqual({ code: 1000, reason: "capacity reached" });
    held[0]!.close();
    await held[0]!.closed;
    await waitFor(() => server.registry.active === 3);
    const reuse = await connect(wsUrl("hostile-test"));
    expect((await reuse.ask({ type: "reset", data: { seed: 9 } })).data.observation.text).toBe(
      "seed 9",
    );
    for (const c of [...held.slice(1), reuse]) c.close();
    await waitFor(() => server.registry.active === 0);
  });

  it("tool-use environments: call_tool steps the environment and answers with the tool's result", async () => {
    const c = await connect(wsUrl("bank-transfer"));
    const first = await c.ask({ type: "reset", data: { seed: 5 } });
    expect(first.data.observation.tools.map((t: any) => t.name)).toEqual([
      "login",
      "list_accounts",
      "find_payee",
      "transfer",
      "wait",
    ]);
    const listed = await c.ask({ type: "step", data: { type: "list_tools" } });
    expect([listed.data.observation.tools.length, listed.data.observation.step_count]).toEqual([
      5, 0,
    ]);
    const call = await c.ask({
      type: "step",
      data: { type: "call_tool", tool_name: "list_accounts", arguments: {} },
    });
    expect(call.data.observation.tool_name).toBe("list_accounts");
    expect(call.data.observation.tool_results).toEqual([
      { id: "call_1", content: call.data.observation.result },
    ]);
    expect(typeof call.data.observation.result).toBe("string");
    c.close();
  });
});

describe("idle sessions", () => {
  it("are closed with SESSION_ERROR after --session-timeout", async () => {
    const short = await startServer({ entries, port: 0, maxSessions: 2, sessionTimeoutS: 0.3 });
    try {
      const c = await connect(`${short.url.replace("http", "ws")}/hostile-test/ws`);
      await c.ask({ type: "reset", data: { seed: 1 } });
      expect(short.registry.active).toBe(1);
      const msg = await c.next();
      expect(msg.data).toEqual({
        message: "session idle for more than 0.3 s; it was closed",
        code: "SESSION_ERROR",
      });
      expect((await c.closed).reason).toBe("idle session closed");
      expect(short.registry.active).toBe(0);
    } finally {
      await short.close();
    }
  });
});

describe("MCP JSON-RPC", () => {
  const rpc = async (body: unknown): Promise<any> =>
    jsonOf(
      fetch(`${base}/bank-transfer/mcp`, {
        method: "POST",
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
  /** A JSON-RPC request `id`: `method` with `params`. */
  const call = (id: number, method: string, params: unknown) =>
    rpc({ jsonrpc: "2.0", method, params, id });

  it("POST /mcp: parse and request errors, tools/list, sessions created, called and closed", async () => {
    expect(await rpc("{x")).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    });
    expect((await rpc({})).error.code).toBe(-32600);
    expect((await rpc({ jsonrpc: "2.0", method: "nope", id: 1 })).error).toEqual({
      code: -32601,
      message: "Method not found: nope",
    });
    const tools = (await rpc({ jsonrpc: "2.0", method: "tools/list", id: 2 })).result.tools;
    expect(tools.map((t: any) => t.name)).toEqual([
      "login",
      "list_accounts",
      "find_payee",
      "transfer",
      "wait",
      "final_answer",
    ]);
    const created = await call(3, "openenv/session/create", { seed: 5 });
    const sid = created.result.session_id;
    expect(server.registry.get(sid)).toBeDefined();
    const called = await call(4, "tools/call", {
      session_id: sid,
      name: "list_accounts",
      arguments: {},
    });
    expect(called.result.content[0].type).toBe("text");
    expect(called.result._meta.spade.step_count).toBe(1);
    expect((await call(5, "tools/call", { session_id: sid, name: "teleport" })).error).toEqual({
      code: -32602,
      message: "Tool not found: teleport",
    });
    expect(await call(6, "openenv/session/close", { session_id: sid })).toEqual({
      jsonrpc: "2.0",
      id: 6,
      result: { session_id: sid, closed: true },
    });
    expect((await call(7, "openenv/session/close", { session_id: sid })).error.code).toBe(-32602);
  });

  it("WS /mcp: one session per connection, JSON-RPC per frame", async () => {
    const c = await connect(`${wsUrl("bank-transfer", "mcp")}?seed=5`);
    expect((await c.ask("nope")).error.code).toBe(-32700);
    const init = await c.ask({
      jsonrpc: "2.0",
      method: "initialize",
      params: { protocolVersion: "2025-03-26" },
      id: 1,
    });
    expect(init.result.protocolVersion).toBe("2025-03-26");
    const called = await c.ask({
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "list_accounts", arguments: {} },
      id: 2,
    });
    expect(called.result._meta.spade.step_count).toBe(1);
    c.close();
  });
});

/** A response body as JSON (any: the tests assert its exact shape). */
async function jsonOf(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 20));
  }
}
