// envs/openenv-remote (a remote OpenEnv environment as an Env) against `spade serve` in-process;
// here rather than in envs/ so the lower layer's folder imports nothing from serve/: the oracle's moves
// (computed locally for the same seed) win remotely; tool calls come back as tool results; bad
// references, unreachable servers and refused sessions are coded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SpadeError } from "../errors.js";
import { loadProgram } from "../sandbox/index.js";
import { codeOf, rejected, thrown } from "../../test/assert.js";
import {
  isOpenEnvRef,
  MAX_REMOTE_MESSAGE_BYTES,
  OpenEnvRemoteEnv,
  parseOpenEnvRef,
  resolveProgram,
} from "../envs/index.js";
import { catalogSources, loadCatalog } from "./catalog.js";
import { startServer, type ServeHandle } from "./server.js";

let server: ServeHandle;
let ref: (name: string) => string;

beforeAll(async () => {
  const entries = await loadCatalog(catalogSources(["vault-cracker", "bank-transfer"]));
  server = await startServer({ entries, port: 0, maxSessions: 2, sessionTimeoutS: null });
  ref = (name) => `openenv+ws://127.0.0.1:${server.port}/${name}`;
});
afterAll(() => server.close());

describe("parseOpenEnvRef", () => {
  it("maps the reference to the socket and HTTP routes", () => {
    expect(parseOpenEnvRef("openenv+ws://h:8000/maze?text_field=message&max_turns=7")).toEqual({
      wsUrl: "ws://h:8000/maze/ws",
      httpBase: "http://h:8000/maze",
      serverBase: "http://h:8000",
      name: "maze",
      textField: "message",
      maxTurns: 7,
      maxMessageBytes: 8 * 1024 * 1024,
    });
    expect(parseOpenEnvRef("openenv+ws://h/x?max_message_bytes=104857600").maxMessageBytes).toBe(
      100 * 1024 * 1024,
    );
    expect(parseOpenEnvRef("openenv+wss://h/").httpBase).toBe("https://h");
    expect([
      isOpenEnvRef("openenv+ws://x/y"),
      isOpenEnvRef("ws://x/y"),
      isOpenEnvRef("vault-cracker"),
    ]).toEqual([true, false, false]);
  });

  it("a malformed reference is E_CONFIG", () => {
    expect(codeOf(() => parseOpenEnvRef("openenv+ws://h/x?max_turns=0"))).toBe("E_CONFIG");
    const tooMany = MAX_REMOTE_MESSAGE_BYTES + 1;
    const messages = ["0", "1.5", "a", String(tooMany)].map(
      (b) =>
        (thrown(() => parseOpenEnvRef(`openenv+ws://h/x?max_message_bytes=${b}`)) as SpadeError)
          .message,
    );
    expect(messages).toEqual(
      ["0", "1.5", "a", String(tooMany)].map(
        (b) =>
          `"openenv+ws://h/x?max_message_bytes=${b}" is not a remote OpenEnv environment: max_message_bytes must be an integer from 1 to ${MAX_REMOTE_MESSAGE_BYTES} (write it as openenv+ws://HOST:PORT/NAME)`,
      ),
    );
  });
});

describe("OpenEnvRemoteEnv against spade serve", () => {
  it("reads meta from the server and wins with the oracle's moves for the same seed", async () => {
    const local = await loadProgram(resolveProgram("vault-cracker").source);
    const remote = await OpenEnvRemoteEnv.open(ref("vault-cracker"));
    try {
      expect(remote.meta).toEqual({ ...local.meta, tools: [] });
      const [a, b] = [await local.reset(21), await remote.reset(21)];
      expect(b).toEqual(a);
      for (let t = 0; t < local.meta.maxTurns; t++) {
        const action = await local.solve();
        const [x, y] = [await local.step(action), await remote.step(action)];
        expect(y).toEqual(x);
        if (x.terminated) {
          expect(y.reward).toBe(1);
          break;
        }
      }
      expect(((await rejected(remote.hint())) as SpadeError).code).toBe("E_ENV_CONTRACT");
      expect(((await rejected(remote.solve())) as SpadeError).code).toBe("E_ENV_CONTRACT");
    } finally {
      await local.close();
      await remote.close();
    }
  });

  it("tool calls are call_tool steps whose results come back by call id", async () => {
    const remote = await OpenEnvRemoteEnv.open(ref("bank-transfer"));
    try {
      expect(remote.meta.tools.map((t) => t.function.name)).toEqual([
        "login",
        "list_accounts",
        "find_payee",
        "transfer",
        "wait",
      ]);
      await remote.reset(3);
      const r = await remote.step({
        text: "",
        answer: null,
        toolCalls: [{ id: "c7", name: "list_accounts", arguments: {} }],
      });
      expect(r.toolResults?.map((t) => t.id)).toEqual(["c7"]);
      expect(typeof r.toolResults?.[0]?.content).toBe("string");
    } finally {
      await remote.close();
    }
  });

  it("a step before reset is E_REMOTE_ENV carrying the server's code; the session goes on", async () => {
    const remote = await OpenEnvRemoteEnv.open(ref("vault-cracker"));
    try {
      const err = (await rejected(
        remote.step({ text: "x", answer: null, toolCalls: [] }),
      )) as SpadeError;
      expect(err.code).toBe("E_REMOTE_ENV");
      expect(err.message).toContain("EXECUTION_ERROR: E_ENV_CONTRACT: step before reset");
      expect((await remote.reset(1)).observation).toContain("secret 4-digit code");
    } finally {
      await remote.close();
    }
  });

  it("a refused session (over --max-sessions) and an unreachable server are E_REMOTE_ENV", async () => {
    const held = [
      await OpenEnvRemoteEnv.open(ref("vault-cracker")),
      await OpenEnvRemoteEnv.open(ref("vault-cracker")),
    ];
    const extra = await OpenEnvRemoteEnv.open(ref("vault-cracker"));
    const err = (await rejected(extra.reset(1))) as SpadeError;
    expect([
      err.code,
      err.message.includes("CAPACITY_REACHED: Server at capacity: 2/2 sessions active"),
    ]).toEqual(["E_REMOTE_ENV", true]);
    for (const e of [...held, extra]) await e.close();
    expect(
      ((await rejected(OpenEnvRemoteEnv.open("openenv+ws://127.0.0.1:1/none"))) as SpadeError).code,
    ).toBe("E_REMOTE_ENV");
  });
});
