// The MCP side through the official MCP TypeScript SDK's client (Streamable HTTP and WebSocket
// transports): it lists a tool-use environment's tools and plays an episode to success with the
// oracle's calls, one sandboxed session per MCP session. Also the seeds of MCP URLs and the
// capacity answer.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { resolveProgram } from "../envs/index.js";
import { loadProgram } from "../sandbox/index.js";
import { catalogSources, loadCatalog } from "./catalog.js";
import { capacityError, FINAL_ANSWER_TOOL, urlSeed } from "./mcp.js";
import { CapacityError } from "./registry.js";
import { startServer, type ServeHandle } from "./server.js";

// Node 20 has no global WebSocket; the SDK's WebSocket transport uses the global one.
const globals = globalThis as { WebSocket?: unknown };
const hadWebSocket = "WebSocket" in globals;
if (!hadWebSocket) globals.WebSocket = WebSocket;

let server: ServeHandle;
let declaredTools: string[];

beforeAll(async () => {
  const entries = await loadCatalog(catalogSources(["bank-transfer"]));
  declaredTools = entries[0]!.meta.tools.map((t) => t.function.name);
  server = await startServer({ entries, port: 0, maxSessions: 4, sessionTimeoutS: null });
});
afterAll(async () => {
  await server.close();
  if (!hadWebSocket) delete globals.WebSocket;
});

/** The oracle's calls for `seed`, as MCP tool calls (a text action becomes `final_answer`), and the rewards. */
async function oracleCalls(
  seed: number,
): Promise<Array<{ name: string; arguments: Record<string, unknown>; reward: number }>> {
  const env = await loadProgram(resolveProgram("bank-transfer").source);
  try {
    await env.reset(seed);
    const calls = [];
    for (let t = 0; t < env.meta.maxTurns; t++) {
      const a = await env.solve();
      expect(a.toolCalls.length).toBeLessThanOrEqual(1);
      const r = await env.step(a);
      const call = a.toolCalls[0];
      calls.push(
        call
          ? { name: call.name, arguments: call.arguments, reward: r.reward }
          : { name: "final_answer", arguments: { text: a.text }, reward: r.reward },
      );
      if (r.terminated || r.truncated) break;
    }
    return calls;
  } finally {
    await env.close();
  }
}

async function playThrough(client: Client, seed: number): Promise<void> {
  const { tools } = await client.listTools();
  // the environment's own tools (server.test.ts names them), then final_answer
  expect(tools.map((t) => t.name)).toEqual([...declaredTools, FINAL_ANSWER_TOOL]);
  expect(tools[3]!.inputSchema.type).toBe("object");
  const calls = await oracleCalls(seed);
  let total = 0;
  let done = false;
  for (const call of calls) {
    const result = (await client.callTool({ name: call.name, arguments: call.arguments })) as {
      content: Array<{ type: string; text: string }>;
      _meta: { spade: { reward: number; done: boolean } };
    };
    expect(result.content[0]!.type).toBe("text");
    expect(result._meta.spade.reward).toBe(call.reward);
    total += result._meta.spade.reward;
    done = result._meta.spade.done;
  }
  expect([total, done]).toEqual([1, true]);
}

describe("the MCP SDK's client", () => {
  it("Streamable HTTP (POST /mcp): a session per Mcp-Session-Id, played to success, closed on DELETE", async () => {
    const client = new Client({ name: "spade-test", version: "0.0.0" });
    const transport = new StreamableHTTPClientTransport(
      new URL(`${server.url}/bank-transfer/mcp?seed=8`),
    );
    await client.connect(transport);
    expect(transport.sessionId).toBeDefined();
    expect(server.registry.get(transport.sessionId!)).toBeDefined();
    expect(client.getServerVersion()).toEqual({ name: "spade", version: "0.1.0" });
    await playThrough(client, 8);
    const sid = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    expect(server.registry.get(sid)).toBeUndefined();
  });

  it("WebSocket (WS /mcp): one session per connection, played to success, released at close", async () => {
    const client = new Client({ name: "spade-test", version: "0.0.0" });
    await client.connect(
      new WebSocketClientTransport(
        new URL(`${server.url.replace("http", "ws")}/bank-transfer/mcp?seed=9`),
      ),
    );
    expect(server.registry.active).toBe(1);
    await playThrough(client, 9);
    await client.close();
    for (let i = 0; i < 100 && server.registry.active > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(server.registry.active).toBe(0);
  });

  it("a server of one environment also serves it at the root (OpenEnv clients' default base URL)", async () => {
    const meta = (await (await fetch(`${server.url}/metadata`)).json()) as { name: string };
    expect(meta.name).toBe("bank-transfer");
    const client = new Client({ name: "spade-test", version: "0.0.0" });
    await client.connect(
      new WebSocketClientTransport(new URL(`${server.url.replace("http", "ws")}/mcp?seed=2`)),
    );
    expect((await client.listTools()).tools.length).toBe(6);
    await client.close();
  });

  it("an unknown tool is the JSON-RPC error -32602", async () => {
    const client = new Client({ name: "spade-test", version: "0.0.0" });
    const transport = new StreamableHTTPClientTransport(
      new URL(`${server.url}/bank-transfer/mcp?seed=1`),
    );
    await client.connect(transport);
    await expect(client.callTool({ name: "teleport", arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await transport.terminateSession();
    await client.close();
  });
});

describe("urlSeed", () => {
  it("reads ?seed=N as a safe integer >= 0, else null", () => {
    const seeds = ["?seed=42", "?seed=0", "?seed=", "?seed=-1", "?seed=1.5", "?seed=x", ""].map(
      (q) => urlSeed(new URL(`http://h/maze/mcp${q}`)),
    );
    expect(seeds).toEqual([42, 0, 0, null, null, null, null]);
  });
});

describe("capacityError", () => {
  it("is SERVER_ERROR -32000 with the session counts", () => {
    expect(capacityError(7, new CapacityError(4, 4))).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32000,
        message: "Server at capacity: 4/4 sessions active. Close a session or retry later.",
        data: { active_sessions: 4, max_sessions: 4 },
      },
    });
  });
});
