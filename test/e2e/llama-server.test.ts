/**
 * A real OpenAI-compatible server nobody here wrote: llama.cpp's server (llama-cpp-python[server],
 * built for the CPU by scripts/setup-llama-server.sh into a cached venv outside the repository)
 * serving the tiny random GGUF model the tests write (a test double: answers are noise). Checks
 * the protocol: what `spade doctor --base-url` reports about that server (sampling parameters,
 * a forced tool call, logprobs, no token ids), and `spade env run --policy openai` against it,
 * with and without tools, and an HTTP error. Skips only when the server is
 * not installed and CI is not set (`npm test` installs it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyLlamaGguf } from "../../src/policy/testing/gguf-writer.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const SERVER_PYTHON = join(
  process.env.SPADE_LLAMA_SERVER_DIR ?? join(homedir(), ".cache", "spade", "llama-server"),
  "bin",
  "python",
);
const PRESENT = existsSync(SERVER_PYTHON);
const SKIP = !PRESENT && process.env.CI !== "true";
const REASON = SKIP
  ? `(skipped: no llama.cpp server at ${SERVER_PYTHON}; run scripts/setup-llama-server.sh)`
  : "";

const dir = fileTempDir("spade-llama-server-");
let server: ChildProcess | undefined;
let baseURL = "";
let log = "";

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

beforeAll(async () => {
  if (SKIP) return;
  if (!PRESENT)
    throw new Error(
      `llama.cpp's server is not installed at ${SERVER_PYTHON}: run bash scripts/setup-llama-server.sh (npm test does)`,
    );
  const model = join(dir, "tiny.gguf");
  await writeTinyLlamaGguf(model, { seed: 1 });
  const port = await freePort();
  baseURL = `http://127.0.0.1:${port}/v1`;
  // chatml-function-calling: llama-cpp-python's chat format with OpenAI tools (a named tool_choice is grammar-constrained).
  const args = [
    "-m",
    "llama_cpp.server",
    "--model",
    model,
    "--model_alias",
    "tiny",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--n_ctx",
    "4096",
    "--chat_format",
    "chatml-function-calling",
    "--logits_all",
    "true",
    "--n_threads",
    "1",
  ];
  server = spawn(SERVER_PYTHON, args, { stdio: ["ignore", "pipe", "pipe"] });
  server.stdout!.on("data", (c: Buffer) => (log += c.toString()));
  server.stderr!.on("data", (c: Buffer) => (log += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null)
      throw new Error(`llama.cpp's server exited (${server.exitCode}): ${log.slice(-2000)}`);
    if (Date.now() > deadline)
      throw new Error(`llama.cpp's server did not answer within 60 s: ${log.slice(-2000)}`);
    const up = await fetch(`${baseURL}/models`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 200));
  }
}, 90_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((r) => server!.once("exit", r));
  }
});

describe.skipIf(SKIP)(`a real OpenAI-compatible server: llama.cpp's ${REASON}`, () => {
  it("spade doctor --base-url reports what that server supports", async () => {
    const run = await spade(["doctor", "--base-url", baseURL, "--model", "tiny", "--json"]);
    const checks = JSON.parse(run.stdout) as Array<{
      name: string;
      status: string;
      detail: string;
    }>;
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName.server).toMatchObject({ status: "ok", detail: "answers and serves tiny" });
    expect(byName["sampling parameters"]).toMatchObject({
      status: "ok",
      detail: "accepts temperature, top_p, top_k, max_tokens, seed",
    });
    expect(byName["tool calls"]).toMatchObject({
      status: "ok",
      detail: "accepted tools and returned a call of get_weather",
    });
    expect(byName.logprobs!.status).toBe("ok");
    // llama.cpp's server returns no token ids: fine for inference-only runs, said as a warning.
    expect(byName["token ids"]).toMatchObject({ status: "warn", detail: "returns no token ids" });
    expect(run.code).toBe(checks.some((c) => c.status === "fail") ? 1 : 0);
  }, 120_000);

  it("spade env run --policy openai plays a library environment to its turn limit: every turn a model call answered by the server", async () => {
    const run = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "openai",
      "--base-url",
      baseURL,
      "--model",
      "tiny",
      "--max-tokens",
      "8",
      "--episodes",
      "1",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.episodes).toHaveLength(1);
    const [episode] = out.episodes;
    expect(episode).toMatchObject({ failure: null, failureCode: null, turns: 10 });
    expect(episode.transcript.messages).toHaveLength(1 + 2 * 10);
  }, 180_000);

  it("a tool-use environment (its tools sent as OpenAI function schemas) plays without failure; a bad base URL path is E_POLICY_HTTP", async () => {
    const run = await spade([
      "env",
      "run",
      "smart-home",
      "--policy",
      "openai",
      "--base-url",
      baseURL,
      "--model",
      "tiny",
      "--max-tokens",
      "8",
      "--episodes",
      "1",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [episode] = JSON.parse(run.stdout).episodes;
    expect(episode.failure).toBeNull();
    expect(episode.turns).toBeGreaterThan(0);
    const wrong = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "openai",
      "--base-url",
      baseURL.replace(/\/v1$/, "/nope"),
      "--model",
      "tiny",
      "--episodes",
      "1",
      "--max-retries",
      "0",
      "--json",
    ]);
    expect(wrong.code).toBe(3);
    expect(JSON.parse(wrong.stdout).episodes[0].failureCode).toBe("E_POLICY_HTTP");
  }, 180_000);
});
