/**
 * The other direction through the built command: `spade env run openenv+ws://...` plays a remote
 * OpenEnv environment (served here by `spade serve`), and `spade run --designer off --env-pool
 * openenv+ws://...` trains the fixed-environment baseline on remote environments. Also the coded
 * failures of both commands' bad input.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer } from "../fakes/selfplay-server.js";
import { spadeAsync, type SpadeProcess } from "./cli.js";
import { DESIGNS, RUN_SEED } from "./selfplay-scenario.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-serve-cli-");
let server: SpadeProcess;
let url: string;
let model: FakeOpenAIServer;

beforeAll(async () => {
  server = spadeAsync([
    "serve",
    "vault-cracker",
    "bank-transfer",
    "--port",
    "0",
    "--max-sessions",
    "16",
    // The connection bounds' flags parse and reach the server (their effect: slow-clients.test.ts).
    "--max-connections",
    "256",
    "--max-connections-per-address",
    "32",
    "--headers-timeout",
    "5",
    "--receive-timeout",
    "20",
  ]);
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    server.child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /at (http:\/\/[^ ]+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    server.done.then((r) => reject(new Error(`spade serve exited early (${r.code}): ${r.stderr}`)));
  });
  model = await startSelfPlayServer({ runSeed: RUN_SEED, designs: DESIGNS });
}, 60_000);

afterAll(async () => {
  server.child.kill("SIGTERM");
  await server.done;
  await model.close();
});

const remote = (name: string) => `${url.replace("http://", "openenv+ws://")}/${name}`;

describe("remote OpenEnv environments", () => {
  it("spade env run openenv+ws://HOST:PORT/NAME plays episodes over the network", async () => {
    const r = await spadeAsync([
      "env",
      "run",
      remote("vault-cracker"),
      "--policy",
      "random",
      "--episodes",
      "3",
      "--seed",
      "5",
      "--json",
    ]).done;
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.env).toBe("vault-cracker");
    expect(out.episodes.map((e: any) => [e.seed, e.failure])).toEqual([
      [5, null],
      [6, null],
      [7, null],
    ]);
    expect(out.episodes[0].transcript.firstObservation).toContain("secret 4-digit code");
    expect(out.episodes.every((e: any) => e.turns >= 1)).toBe(true);
  });

  it("spade eval env evaluates a policy on remote environments: an item each, --samples episodes", async () => {
    const out = join(dir, "eval");
    const r = await spadeAsync([
      "eval",
      "env",
      remote("vault-cracker"),
      remote("bank-transfer"),
      "--policy",
      "random",
      "--samples",
      "2",
      "--out",
      out,
      "--json",
    ]).done;
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect([summary.benchmark, summary.items, summary.samples, summary.failedSamples]).toEqual([
      "env",
      2,
      2,
      0,
    ]);
    expect(summary.groups.map((g: any) => [g.group, g.items, g.samples])).toEqual([
      ["vault-cracker", 1, 2],
      ["bank-transfer", 1, 2],
    ]);
  });

  it("an unreachable server is E_REMOTE_ENV; --hint on a remote environment is a recorded failure", async () => {
    const down = await spadeAsync([
      "env",
      "run",
      "openenv+ws://127.0.0.1:1/nothing",
      "--policy",
      "random",
    ]).done;
    expect([
      down.code,
      down.stderr.startsWith("spade: E_REMOTE_ENV: http://127.0.0.1:1/nothing/metadata:"),
    ]).toEqual([1, true]);
    const hinted = await spadeAsync([
      "env",
      "run",
      remote("vault-cracker"),
      "--policy",
      "random",
      "--hint",
      "--json",
    ]).done;
    expect(hinted.code).toBe(3);
    expect(JSON.parse(hinted.stdout).episodes[0].failureCode).toBe("E_ENV_CONTRACT");
  });

  it("spade run --designer off --env-pool openenv+ws://... plays only the remote environments", async () => {
    const out = join(dir, "remote-baseline");
    const pool = `${remote("vault-cracker")},${remote("bank-transfer")}`;
    const run = await spadeAsync([
      "run",
      "--out",
      out,
      "--no-train",
      "--base-url",
      model.baseURL,
      "--model",
      "m",
      "--designer",
      "off",
      "--env-pool",
      pool,
      "--steps",
      "2",
      "--designs-per-step",
      "2",
      "--agent-batch",
      "4",
      "--concurrency",
      "4",
    ]).done;
    expect([run.code, run.stderr.slice(-300)]).toEqual([0, expect.stringContaining("step 2/2")]);
    const store = RunStore.open(out, "read");
    const envs = store.environments();
    const episodes = store.episodes();
    store.close();
    expect(envs.map((e) => [e.id, e.name, e.code])).toEqual([
      ["lib-remote-0-vault-cracker", "vault-cracker", remote("vault-cracker")],
      ["lib-remote-1-bank-transfer", "bank-transfer", remote("bank-transfer")],
    ]);
    expect(new Set(episodes.map((e) => e.envId))).toEqual(new Set(envs.map((e) => e.id)));
    expect(episodes.filter((e) => e.failure !== null)).toEqual([]);
  });

  it("--env-pool openenv+ws://... with the designer on is E_CONFIG", async () => {
    const r = await spadeAsync([
      "run",
      "--out",
      join(dir, "bad"),
      "--no-train",
      "--base-url",
      model.baseURL,
      "--model",
      "m",
      "--env-pool",
      remote("vault-cracker"),
      "--steps",
      "1",
    ]).done;
    expect([
      r.code,
      r.stderr.includes(
        `E_CONFIG: --env-pool ${remote("vault-cracker")} is the pool of the fixed-environment baseline`,
      ),
    ]).toEqual([2, true]);
  });
});

describe("spade serve bad input", () => {
  it("unknown environments and bad flags are coded (exit 2)", async () => {
    const unknown = await spadeAsync(["serve", "no-such-env", "--port", "0"]).done;
    expect([
      unknown.code,
      unknown.stderr.startsWith(
        'spade: E_NOT_FOUND: no file or library environment named "no-such-env"',
      ),
    ]).toEqual([2, true]);
    const flags = await spadeAsync(["serve", "vault-cracker", "--max-sessions", "0"]).done;
    expect([flags.code, flags.stderr]).toEqual([
      2,
      'spade: E_CONFIG: --max-sessions must be an integer >= 1 (got "0")\n',
    ]);
    const timeout = await spadeAsync(["serve", "vault-cracker", "--session-timeout", "soon"]).done;
    expect([timeout.code, timeout.stderr]).toEqual([
      2,
      'spade: E_CONFIG: --session-timeout must be a number >= 0 (got "soon")\n',
    ]);
    const bounds = await spadeAsync(["serve", "vault-cracker", "--receive-timeout", "5"]).done;
    expect([bounds.code, bounds.stderr]).toEqual([
      2,
      "spade: E_CONFIG: --receive-timeout (5 s) must be at least --headers-timeout (10 s): a request's time includes its headers (raise --receive-timeout or lower --headers-timeout)\n",
    ]);
  });
});
