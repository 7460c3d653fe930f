/**
 * `spade env run --policy openai` through the real, built command against the fake
 * OpenAI-compatible server (a test double). `npm test` builds first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../fakes/openai-server.js";
import { spade } from "./cli.js";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("spade env run --policy openai", () => {
  it("plays a library environment through an OpenAI-compatible server and prints messages and failure", async () => {
    server = await startFakeOpenAIServer(() => ({ kind: "text", content: "\\boxed{0123}" }));
    const r = await spade(
      [
        "env",
        "run",
        "vault-cracker",
        "--policy",
        "openai",
        "--base-url",
        server.baseURL,
        "--model",
        "m1",
        "--api-key-env",
        "SPADE_E2E_KEY",
        "--json",
      ],
      { SPADE_E2E_KEY: "sk-e2e" },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const [episode] = out.episodes;
    expect(episode).toMatchObject({ seed: 0, failure: null, failureCode: null, hinted: false });
    // Either the fixed guess happens to be the code, or all 10 turns are used.
    expect(episode.turns === 10 || episode.success).toBe(true);
    expect(episode.transcript.messages).toHaveLength(1 + 2 * episode.turns);
    expect(episode.transcript.messages[1]).toEqual({
      role: "user",
      content: episode.transcript.firstObservation,
    });
    expect(server.requests).toHaveLength(episode.turns);
    expect(server.requests[0]!.body.model).toBe("m1");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-e2e");
  });

  it("records a server that keeps failing as the episode's failure", async () => {
    server = await startFakeOpenAIServer(() => ({
      kind: "status",
      status: 400,
      message: "unknown model",
    }));
    const r = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "openai",
      "--base-url",
      server.baseURL,
      "--model",
      "nope",
      "--json",
    ]);
    expect(r.code).toBe(3);
    const [episode] = JSON.parse(r.stdout).episodes;
    expect(episode).toMatchObject({ turns: 0, success: false, failureCode: "E_POLICY_HTTP" });
    expect(episode.failure).toMatch(
      /^agent: E_POLICY_HTTP: .* answered HTTP 400: 400 unknown model \(1 attempt\)/,
    );
  });

  it("exits 2 with E_CONFIG for a missing --base-url or an unset key variable", async () => {
    const noUrl = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "openai",
      "--model",
      "m",
    ]);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toBe(
      "spade: E_CONFIG: --policy openai needs --base-url (add --base-url http://127.0.0.1:8000/v1)\n",
    );
    const noKey = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "openai",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--model",
      "m",
      "--api-key-env",
      "SPADE_E2E_UNSET",
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("E_CONFIG: the environment variable SPADE_E2E_UNSET");
  });
});
