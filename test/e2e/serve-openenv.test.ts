/**
 * `spade serve` against OpenEnv's own client (openenv-core 0.3.0, installed by
 * scripts/setup-openenv.sh, which `npm test` runs): `openenv validate --url` passes;
 * GenericEnvClient (sync and async) plays a library game to success with the oracle's actions
 * and a tool-use environment through `call_tool`; 32 concurrent sessions keep their own state;
 * the session beyond --max-sessions gets CAPACITY_REACHED; the Python shim's TRL class plays too.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Action } from "../../src/env/index.js";
import { resolveProgram } from "../../src/envs/index.js";
import { loadProgram } from "../../src/sandbox/index.js";
import { spadeAsync, type SpadeProcess } from "./cli.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const VENV =
  process.env.SPADE_OPENENV_DIR ||
  join(process.env.HOME || homedir(), ".cache", "spade", "openenv");
const PYTHON = join(VENV, "bin", "python");
const DRIVER = join(ROOT, "test", "e2e", "openenv", "drive.py");
const MAX_SESSIONS = 32;

/** An action as an OpenEnv client sends it. */
function wire(a: Action): unknown {
  if (a.toolCalls.length === 1 && !a.text)
    return {
      type: "call_tool",
      tool_name: a.toolCalls[0]!.name,
      arguments: a.toolCalls[0]!.arguments,
    };
  if (a.toolCalls.length > 0)
    return {
      text: a.text,
      tool_calls: a.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
    };
  return { text: a.text };
}

/** The oracle's actions for one seed, played in-process, and the rewards they earned. */
async function oracle(
  name: string,
  seed: number,
): Promise<{ actions: unknown[]; rewards: number[]; first: string }> {
  const env = await loadProgram(resolveProgram(name).source);
  try {
    const first = (await env.reset(seed)).observation;
    const actions: unknown[] = [];
    const rewards: number[] = [];
    for (let t = 0; t < env.meta.maxTurns; t++) {
      const a = await env.solve();
      const r = await env.step(a);
      actions.push(wire(a));
      rewards.push(r.reward);
      if (r.terminated || r.truncated) break;
    }
    return { actions, rewards, first };
  } finally {
    await env.close();
  }
}

/** Runs the driver's jobs in one Python process (importing openenv-core is slow); a result per job. */
async function drive(url: string, jobs: unknown[]): Promise<any[]> {
  const child = execFile(PYTHON, [DRIVER], {
    env: { ...process.env, PYTHONPATH: join(ROOT, "python") },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  child.stdin!.end(JSON.stringify({ url, jobs }));
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`drive.py exited ${code}: ${stderr.slice(-2000)}`);
  return JSON.parse(stdout);
}

/** One job's result, or the driver's report of its failure as a thrown error. */
function ok(result: any): any {
  if (result.failed) throw new Error(result.failed);
  return result.ok;
}

let server: SpadeProcess;
let url: string;
const SEEDS = Array.from({ length: MAX_SESSIONS }, (_, i) => 100 + i);
let plans: Record<string, Awaited<ReturnType<typeof oracle>>>;
let many: Array<Awaited<ReturnType<typeof oracle>>>;
let results: any[];

beforeAll(async () => {
  server = spadeAsync([
    "serve",
    "vault-cracker",
    "bank-transfer",
    "--port",
    "0",
    "--max-sessions",
    String(MAX_SESSIONS),
  ]);
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    server.child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /serving 2 environments at (http:\/\/[^ ]+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    server.done.then((r) => reject(new Error(`spade serve exited early (${r.code}): ${r.stderr}`)));
  });
  plans = {
    vault: await oracle("vault-cracker", 17),
    bank: await oracle("bank-transfer", 4),
    trl: await oracle("bank-transfer", 6),
  };
  many = await Promise.all(SEEDS.map((s) => oracle("vault-cracker", s)));
  results = await drive(url, [
    { cmd: "play", name: "vault-cracker", seed: 17, actions: plans.vault!.actions, mode: "sync" },
    { cmd: "play", name: "vault-cracker", seed: 17, actions: plans.vault!.actions, mode: "async" },
    { cmd: "play", name: "bank-transfer", seed: 4, actions: plans.bank!.actions, mode: "async" },
    {
      cmd: "many",
      name: "vault-cracker",
      plan: Object.fromEntries(SEEDS.map((s, i) => [String(s), many[i]!.actions])),
    },
    { cmd: "capacity", name: "vault-cracker", n: MAX_SESSIONS },
    { cmd: "trl", name: "bank-transfer", seed: 6, actions: plans.trl!.actions },
  ]);
}, 400_000);

afterAll(async () => {
  server.child.kill("SIGTERM");
  const result = await server.done;
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("server stopped");
});

describe("spade serve with openenv-core 0.3.0 as the client", () => {
  it("openenv-core is installed (bash scripts/setup-openenv.sh)", () => {
    expect(existsSync(PYTHON)).toBe(true);
  });

  it("openenv validate --url passes for a game and a tool-use environment", async () => {
    for (const name of ["vault-cracker", "bank-transfer"]) {
      const { stdout } = await run(
        join(VENV, "bin", "openenv"),
        ["validate", "--url", `${url}/${name}`],
        { timeout: 60_000 },
      );
      const report = JSON.parse(stdout);
      expect([
        report.passed,
        report.mode,
        report.standard_profile,
        report.summary.failed_criteria,
      ]).toEqual([true, "simulation", "openenv-http/1.x", []]);
      expect(report.criteria.map((c: any) => c.id)).toEqual([
        "openapi_version_available",
        "health_endpoint",
        "metadata_endpoint",
        "schema_endpoint",
        "mcp_endpoint",
        "mode_endpoint_consistency",
      ]);
    }
  });

  for (const [index, mode] of [
    [0, "sync"],
    [1, "async"],
  ] as const) {
    it(`GenericEnvClient (${mode}) plays vault-cracker to success with the oracle's actions`, () => {
      const plan = plans.vault!;
      const out = ok(results[index]);
      expect(out.first.observation.text).toBe(plan.first);
      expect([out.first.reward, out.first.done]).toEqual([null, false]);
      expect(out.steps.map((s: any) => s.reward)).toEqual(plan.rewards);
      expect(out.steps.at(-1).done).toBe(true);
      expect(out.steps.at(-1).observation.terminated).toBe(true);
      expect(plan.rewards.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(0.99);
      expect(out.state).toMatchObject({
        step_count: plan.actions.length,
        seed: 17,
        done: true,
        env: "vault-cracker",
        episode_return: 1,
      });
    });
  }

  it("GenericEnvClient plays a tool-use environment through call_tool to success", () => {
    const plan = plans.bank!;
    expect(plan.actions.some((a: any) => a.type === "call_tool")).toBe(true);
    const out = ok(results[2]);
    expect(out.first.observation.tools.map((t: any) => t.name)).toEqual([
      "login",
      "list_accounts",
      "find_payee",
      "transfer",
      "wait",
    ]);
    expect(out.steps.map((s: any) => s.reward)).toEqual(plan.rewards);
    const firstCall = out.steps.find(
      (_s: any, i: number) => (plan.actions[i] as any).type === "call_tool",
    );
    expect(typeof firstCall.observation.result).toBe("string");
    expect(firstCall.observation.tool_results[0].content).toBe(firstCall.observation.result);
    expect(out.state.episode_return).toBe(1);
  });

  it(`${MAX_SESSIONS} concurrent sessions each play their own seed to success, state never crossed`, () => {
    // The seeds hide different codes, so one session's oracle moves fail in any other session.
    expect(new Set(many.map((p) => JSON.stringify(p.actions))).size).toBe(MAX_SESSIONS);
    const sessions: any[] = ok(results[3]);
    expect(sessions.length).toBe(MAX_SESSIONS);
    for (const [i, r] of sessions.entries()) {
      expect(r.seed).toBe(SEEDS[i]);
      expect(r.first).toBe(many[i]!.first);
      expect(r.rewards).toEqual(many[i]!.rewards);
      expect([r.done, r.state.seed, r.state.episode_id, r.state.episode_return]).toEqual([
        true,
        SEEDS[i],
        `episode-${SEEDS[i]}`,
        1,
      ]);
    }
  });

  it(`the session beyond --max-sessions ${MAX_SESSIONS} gets CAPACITY_REACHED`, () => {
    const out = ok(results[4]);
    expect(out.error).toBe(
      `Server error: Server at capacity: ${MAX_SESSIONS}/${MAX_SESSIONS} sessions active. Close a session or retry later. (code: CAPACITY_REACHED)`,
    );
  });

  it("the shim's TRL environment_factory class exposes the tools and plays to success", () => {
    const plan = plans.trl!;
    const out = ok(results[5]);
    expect(out.tools).toEqual([
      "final_answer",
      "find_payee",
      "list_accounts",
      "login",
      "transfer",
      "wait",
    ]);
    expect(out.signatures.final_answer).toBe("(text: str) -> str");
    expect(out.first).toBe(plan.first);
    expect([out.reward, out.done, out.after_end]).toEqual([1, true, "The episode is over."]);
    expect(out.signatures.transfer).toMatch(/^\(\*, /);
    expect(out.index).toEqual(["vault-cracker", "bank-transfer"]);
    expect(out.prompt).toEqual([{ role: "user", content: "ok" }]);
  });
});
