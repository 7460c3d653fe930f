// envs/openenv-remote against hostile or broken servers (fake ones, on 127.0.0.1): one that never
// answers its HTTP routes or the WebSocket handshake, one whose metadata never ends, one that
// redirects elsewhere, one that floods messages nobody asked for, one whose reply is over the cap,
// one that answers with something other than JSON. Each is E_REMOTE_ENV within the timeout; none
// hangs the caller, fills its memory or sends its requests to another server. The protocol against
// the real `spade serve` is tested in serve/remote-env.test.ts.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { rejected } from "../../test/assert.js";
import type { SpadeError } from "../errors.js";
import {
  DEFAULT_REMOTE_MESSAGE_BYTES,
  MAX_REMOTE_META_BYTES,
  parseOpenEnvRef,
  remoteMeta,
} from "./openenv-ref.js";
import { MAX_UNASKED_BYTES, MAX_UNASKED_MESSAGES, OpenEnvRemoteEnv } from "./openenv-remote.js";

/**
 * TEST DOUBLE: an OpenEnv server whose HTTP answers are `http`'s (default: `{"name": "x"}` for
 * metadata, `{}` elsewhere) and whose sockets are `socket`'s; `upgrade: false` never answers the
 * handshake. `closed` resolves when a socket closes.
 */
async function fakeServer(
  behaviour: {
    http?: (req: IncomingMessage, res: ServerResponse) => void;
    socket?: (ws: WebSocket) => void;
    upgrade?: false;
  } = {},
) {
  const server = createServer(
    behaviour.http ??
      ((req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(req.url?.endsWith("/metadata") ? '{"name":"x"}' : "{}");
      }),
  );
  const wss = new WebSocketServer({ noServer: true });
  let onClosed: () => void = () => {};
  const closed = new Promise<"closed">((resolve) => (onClosed = () => resolve("closed")));
  server.on("upgrade", (req, socket, head) => {
    if (behaviour.upgrade === false) return; // accepted, never answered
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("close", onClosed);
      behaviour.socket?.(ws);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  opened.push(server);
  return { ref: `openenv+ws://127.0.0.1:${port}/x`, closed };
}
const opened: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.closeAllConnections(), s.close();
});

const noAction = { text: "x", answer: null, toolCalls: [] };
/** A reply of exactly `bytes` bytes (at least its envelope's) whose observation text is z's. */
const replyOf = (bytes: number) => {
  const shell = JSON.stringify({ data: { observation: { text: "" } } });
  return JSON.stringify({
    data: { observation: { text: "z".repeat(Math.max(0, bytes - shell.length)) } },
  });
};
const OVER_CAP_NEXT_STEP =
  "if its replies are that large, raise the cap with ?max_message_bytes=N on the reference (default 8388608); reopen the environment";
const UNASKED = `more than ${MAX_UNASKED_MESSAGES} messages or ${MAX_UNASKED_BYTES} bytes that no request asked for`;
const LATE =
  "no answer within 200 ms; the connection was closed, so that a late reply cannot be taken for another request's";

describe("OpenEnvRemoteEnv against a hostile server", () => {
  it("a server that never answers its HTTP routes is E_REMOTE_ENV after the timeout", async () => {
    const { ref } = await fakeServer({ http: () => {} });
    const err = (await rejected(OpenEnvRemoteEnv.open(ref, { timeoutMs: 200 }))) as SpadeError;
    expect([err.code, err.message.includes("/x/metadata: no answer within 200 ms")]).toEqual([
      "E_REMOTE_ENV",
      true,
    ]);
  });

  it("a server that never answers the WebSocket handshake is E_REMOTE_ENV after the timeout", async () => {
    const { ref } = await fakeServer({ upgrade: false });
    const err = (await rejected(OpenEnvRemoteEnv.open(ref, { timeoutMs: 200 }))) as SpadeError;
    expect([err.code, err.message.includes("Opening handshake has timed out")]).toEqual([
      "E_REMOTE_ENV",
      true,
    ]);
  });

  it("metadata larger than the cap is refused while it streams", async () => {
    const { ref } = await fakeServer({
      http: (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`{"name":"${"a".repeat(5 * 1024 * 1024)}"}`); // 5 MiB
      },
    });
    const err = (await rejected(OpenEnvRemoteEnv.open(ref))) as SpadeError;
    expect([
      err.code,
      err.message.includes(`an answer of more than ${MAX_REMOTE_META_BYTES} bytes`),
    ]).toEqual(["E_REMOTE_ENV", true]);
  });

  it("a redirect of the metadata is E_REMOTE_ENV naming where it pointed, and not followed", async () => {
    const elsewhere: string[] = [];
    const other = await fakeServer({
      http: (req, res) => (elsewhere.push(req.url ?? ""), res.end('{"name":"other"}')),
    });
    const otherBase = parseOpenEnvRef(other.ref).serverBase;
    // Another server, then another path of this one.
    for (const location of [`${otherBase}/secret/metadata`, "/x/metadata/"]) {
      const { ref } = await fakeServer({
        http: (_req, res) => (res.writeHead(302, { location }), res.end()),
      });
      const { httpBase, serverBase } = parseOpenEnvRef(ref);
      const where = location.startsWith("/") ? `${serverBase}${location}` : location;
      const err = (await rejected(OpenEnvRemoteEnv.open(ref))) as SpadeError;
      expect([err.code, err.message]).toEqual([
        "E_REMOTE_ENV",
        `${httpBase}/metadata answered HTTP 302, a redirect to "${where}"; remote environments are read from the server they name only, so it was not followed (if that is where the environment is served, name that server in the reference)`,
      ]);
    }
    expect(elsewhere).toEqual([]);
  });

  it("a redirect of the MCP tools or the index is not followed: no tools, no index", async () => {
    const elsewhere: string[] = [];
    const other = await fakeServer({
      http: (req, res) => (elsewhere.push(req.url ?? ""), res.end('{"result":{"tools":[]}}')),
    });
    const otherBase = parseOpenEnvRef(other.ref).serverBase;
    const { ref } = await fakeServer({
      http: (req, res) => {
        if (req.url?.endsWith("/metadata")) return res.end('{"name":"x"}');
        res.writeHead(307, { location: `${otherBase}${req.url}` });
        res.end();
      },
    });
    const meta = await remoteMeta(parseOpenEnvRef(ref));
    expect([meta.name, meta.tools, meta.skill, elsewhere]).toEqual(["x", [], "Remote", []]);
  });

  it("a reply over the reference's max_message_bytes is E_REMOTE_ENV naming the cap; one at it is taken", async () => {
    const sizes = [4096, 4097];
    const { ref } = await fakeServer({
      socket: (ws) => ws.on("message", () => ws.send(replyOf(sizes.shift() ?? 0))),
    });
    const capped = `${ref}?max_message_bytes=4096`;
    const env = await OpenEnvRemoteEnv.open(capped);
    expect((await env.reset(1)).observation.length).toBe(4096 - replyOf(0).length);
    const err = (await rejected(env.reset(2))) as SpadeError;
    const over = `${parseOpenEnvRef(capped).wsUrl}: the server sent a message of more than 4096 bytes; the connection was closed (${OVER_CAP_NEXT_STEP})`;
    expect([err.code, err.message]).toEqual(["E_REMOTE_ENV", over]);
    const later = (await rejected(env.reset(3))) as SpadeError;
    expect([later.code, later.message]).toEqual(["E_REMOTE_ENV", over]);
  });

  it("by default a reply one byte over 8 MiB is refused", async () => {
    const { ref } = await fakeServer({
      socket: (ws) => ws.on("message", () => ws.send(replyOf(DEFAULT_REMOTE_MESSAGE_BYTES + 1))),
    });
    const env = await OpenEnvRemoteEnv.open(ref);
    const err = (await rejected(env.reset(1))) as SpadeError;
    expect([DEFAULT_REMOTE_MESSAGE_BYTES, err.code, err.message]).toEqual([
      8 * 1024 * 1024,
      "E_REMOTE_ENV",
      `${parseOpenEnvRef(ref).wsUrl}: the server sent a message of more than 8388608 bytes; the connection was closed (${OVER_CAP_NEXT_STEP})`,
    ]);
  });

  it("a server that floods messages nobody asked for is cut off; later calls are E_REMOTE_ENV", async () => {
    const frame = JSON.stringify({ type: "observation", data: { observation: { text: "hi" } } });
    const { ref, closed } = await fakeServer({
      // One answer to the reset, then 19 more: more than the client keeps.
      socket: (ws) =>
        ws.once("message", () => {
          for (let i = 0; i < 20; i++) ws.send(frame);
        }),
    });
    const env = await OpenEnvRemoteEnv.open(ref);
    expect((await env.reset(1)).observation).toBe("hi");
    // A generous bound: the client closes as soon as the frames arrive (milliseconds).
    const bound = new Promise((resolve) => setTimeout(() => resolve("still open"), 10_000));
    expect(await Promise.race([closed, bound])).toBe("closed");
    const err = (await rejected(env.step(noAction))) as SpadeError;
    expect([err.code, err.message.includes(UNASKED)]).toEqual(["E_REMOTE_ENV", true]);
  });

  it("unasked messages past MAX_UNASKED_BYTES together are cut off, however few", async () => {
    // Two frames of 600 KiB, sent before any request: under the count cap, over the byte cap.
    const frame = JSON.stringify({ type: "observation", data: { text: "x".repeat(600 * 1024) } });
    const { ref, closed } = await fakeServer({ socket: (ws) => (ws.send(frame), ws.send(frame)) });
    const env = await OpenEnvRemoteEnv.open(ref);
    // A generous bound: the client closes as soon as the second frame arrives (milliseconds).
    const bound = new Promise((resolve) => setTimeout(() => resolve("still open"), 10_000));
    expect(await Promise.race([closed, bound])).toBe("closed");
    const first = await env.reset(1).catch((e: SpadeError) => e);
    expect([(first as SpadeError).code, (first as SpadeError).message.includes(UNASKED)]).toEqual([
      "E_REMOTE_ENV",
      true,
    ]);
  });

  it("a reply larger than MAX_UNASKED_BYTES, asked for, is taken whole", async () => {
    const text = "y".repeat(3 * MAX_UNASKED_BYTES);
    const { ref } = await fakeServer({
      socket: (ws) =>
        ws.on("message", () => ws.send(JSON.stringify({ data: { observation: { text } } }))),
    });
    const env = await OpenEnvRemoteEnv.open(ref);
    expect((await env.reset(1)).observation.length).toBe(3 * MAX_UNASKED_BYTES);
    await env.close();
  });

  it("a reply that comes after its timeout is not taken for the next request's", async () => {
    // The reset's answer comes late; the step's answer would then be the reset's.
    const answer = (text: string) => JSON.stringify({ data: { observation: { text } } });
    let n = 0;
    const { ref, closed } = await fakeServer({
      socket: (ws) =>
        ws.on("message", () => {
          const text = `answer ${++n}`;
          setTimeout(() => ws.readyState === ws.OPEN && ws.send(answer(text)), n === 1 ? 400 : 0);
        }),
    });
    const env = await OpenEnvRemoteEnv.open(ref, { timeoutMs: 200 });
    const { wsUrl } = parseOpenEnvRef(ref);
    const late = (await rejected(env.reset(1))) as SpadeError;
    expect([late.code, late.message]).toEqual([
      "E_REMOTE_ENV",
      `${wsUrl}: ${LATE} (check the server's log; reopen the environment)`,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 400)); // past the late answer
    const next = (await rejected(env.reset(2))) as SpadeError;
    expect([next.code, next.message]).toEqual([
      "E_REMOTE_ENV",
      `${wsUrl}: ${LATE} (open the environment again)`,
    ]);
    expect(await closed).toBe("closed");
  });

  it("an answer that is not a JSON object is E_REMOTE_ENV", async () => {
    const answers = ["<html>", "null", "[1]"];
    const { ref } = await fakeServer({
      socket: (ws) => ws.on("message", () => ws.send(answers.shift() ?? "")),
    });
    const env = await OpenEnvRemoteEnv.open(ref);
    const errors: SpadeError[] = [];
    for (let i = 0; i < 3; i++) errors.push((await rejected(env.reset(1))) as SpadeError);
    expect(errors.map((e) => e.code)).toEqual(["E_REMOTE_ENV", "E_REMOTE_ENV", "E_REMOTE_ENV"]);
    expect(errors[0]?.message).toContain(
      'the server answered with a message that is not a JSON object: "<html>"',
    );
    await env.close();
  });
});

/** TEST DOUBLE: HTTP answers of a server whose MCP `tools/list` lists `tools`. */
function listing(tools: unknown) {
  return (req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url?.endsWith("/metadata")) res.end('{"name":"x"}');
    else if (req.url?.endsWith("/mcp")) res.end(JSON.stringify({ result: { tools } }));
    else res.end("{}");
  };
}

describe("remoteMeta's tools", () => {
  it("reads MCP tools as ToolSpecs, filling a missing description and schema, without final_answer", async () => {
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    const { ref } = await fakeServer({
      http: listing([
        { name: "guess", description: "guess n", inputSchema: schema },
        { name: "peek" },
        { name: "final_answer" },
      ]),
    });
    expect((await remoteMeta(parseOpenEnvRef(ref))).tools).toEqual([
      { type: "function", function: { name: "guess", description: "guess n", parameters: schema } },
      {
        type: "function",
        function: { name: "peek", description: "", parameters: { type: "object", properties: {} } },
      },
    ]);
  });

  it("refuses tools of another shape with E_REMOTE_ENV, naming each problem", async () => {
    const cases: Array<[unknown, string]> = [
      [[{ name: 42 }], "tools[0].function.name must match ^[A-Za-z0-9_-]{1,64}$ (got 42)"],
      [[{ name: "" }], 'tools[0].function.name must match ^[A-Za-z0-9_-]{1,64}$ (got "")'],
      [[{ name: "a", description: ["d"] }], "tools[0].function.description must be a string"],
      [
        [{ name: "a", inputSchema: "s" }],
        'tools[0].function.parameters must be a JSON Schema with type "object"',
      ],
      [["a"], 'tools[0] must be {type: "function", function: {name, description, parameters}}'],
      [{ a: 1 }, "tools/list answered `tools` that is not an array"],
    ];
    for (const [tools, problem] of cases) {
      const { ref } = await fakeServer({ http: listing(tools) });
      const err = (await rejected(remoteMeta(parseOpenEnvRef(ref)))) as SpadeError;
      expect([err.code, err.message.includes(problem), err.nextStep]).toEqual([
        "E_REMOTE_ENV",
        true,
        "fix the server's tools: each needs a name (letters, digits, _ or -), a string description and an object inputSchema",
      ]);
    }
  });
});
