/**
 * tau2-bench through its own harness (installed by scripts/setup-tau2.sh, which `npm test` runs):
 * a few tasks of each domain against scripted servers (test doubles). The oracle agent replays
 * each task's ground-truth actions with a compliant scripted user and passes; an agent that does
 * nothing fails every task that needs a change; SPADE's pass^1 equals the pass^1 tau2's own
 * metrics report for the same simulations. Also: the settings reach the servers, a user simulator
 * that fails is a coded failed sample, --resume keeps finished tasks, a model server that is down
 * stops the run (E_POLICY_UNAVAILABLE) and --resume plays its tasks again, a run none of whose
 * trials could be played exits 3, a missing install is coded.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSpadeError } from "../../src/errors.js";
import {
  idleAgentTurn,
  runTau2,
  scriptedUserTurn,
  startShim,
  tau2PassAt1,
  tau2Python,
  tau2ScoresOf,
  type ShimHandler,
} from "../../src/eval/tau2/index.js";
import { spadeAsync } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-tau2-e2e-");
const MINUTES = 60_000;

describe("tau2-bench harness", () => {
  it("is installed (bash scripts/setup-tau2.sh)", () => {
    expect(existsSync(tau2Python())).toBe(true);
  });

  // One trial per task keeps the test at 15 simulations; the default 4 trials give the same 1.0.
  it(
    "spade eval tau2 --policy oracle --domain all --limit 5: pass^1 = 1.0 per domain, as tau2 reports it",
    async () => {
      const out = join(dir, "oracle");
      const result = await spadeAsync([
        "eval",
        "tau2",
        "--policy",
        "oracle",
        "--domain",
        "all",
        "--limit",
        "5",
        "--trials",
        "1",
        "--out",
        out,
        "--json",
      ]).done;
      expect(result.stderr).not.toContain("simulation failed");
      expect(result.code).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary.passAt1).toEqual({ airline: 1, retail: 1, telecom: 1 });
      expect(summary.settings).toMatchObject({
        split: "base",
        trials: 1,
        maxSteps: 200,
        temperature: 0,
        topP: 0.8,
        topK: 20,
        maxTokens: 16384,
      });
      expect(
        summary.tau2Reports.map((r: any) => [r.domain, r.passHatK["1"], r.simulations]),
      ).toEqual([
        ["retail", 1, 5],
        ["airline", 1, 5],
        ["telecom", 1, 5],
      ]);
      expect(readdirSync(join(out, "items")).length).toBe(15);
      expect(
        Object.fromEntries(
          Object.entries(await tau2PassAt1(out)).map(([d, s]) => [
            d,
            [s.passAt1, s.tasks, s.trials],
          ]),
        ),
      ).toEqual({
        airline: [1, 5, 1],
        retail: [1, 5, 1],
        telecom: [1, 5, 1],
      });
      // tau2's own results files hold the same simulations.
      const retail = JSON.parse(readFileSync(join(out, "tau2", "retail.json"), "utf8"));
      expect(retail.simulations.map((s: any) => s.reward_info.reward)).toEqual([1, 1, 1, 1, 1]);
    },
    15 * MINUTES,
  );

  it(
    "a model that does nothing, on a scripted server: fails the tasks that need a change; settings reach every server",
    async () => {
      const shim = await startShim(
        {
          "idle-model": () => idleAgentTurn(),
          "user-model": (req) => scriptedUserTurn(req.messages),
          // Scripted judge: grades no assertion (the base splits' rewards do not include NL assertions).
          "judge-model": () => ({ content: '{"results": []}' }),
        },
        { record: true },
      );
      const out = join(dir, "idle");
      try {
        const run = await runTau2({
          domains: ["retail", "airline", "telecom"],
          agent: { kind: "model", endpoint: { baseURL: shim.baseURL, model: "idle-model" } },
          user: { baseURL: shim.baseURL, model: "user-model" },
          judge: { baseURL: shim.baseURL, model: "judge-model" },
          settings: { trials: 1, concurrency: 4 },
          limit: 3,
          outDir: out,
          resume: false,
        });
        const byId = Object.fromEntries(run.items.map((i) => [i.id, i.accuracy]));
        // airline 0 and 1 expect no change to the database (a refusal, read-only look-ups): doing nothing passes them.
        expect(byId).toEqual({
          "retail/0": 0,
          "retail/1": 0,
          "retail/2": 0,
          "airline/0": 1,
          "airline/1": 1,
          "airline/2": 0,
          "telecom/[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]": 0,
          "telecom/[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]": 0,
          "telecom/[mobile_data_issue]airplane_mode_on|bad_network_preference[PERSONA:Hard]": 0,
        });
        const scores = tau2ScoresOf(run.items);
        for (const report of run.reports)
          expect(scores[report.domain]!.passAt1).toBe(report.passHatK["1"]);
        expect(run.reports.map((r) => r.passHatK["1"])).toEqual([0, 2 / 3, 0]);
        const agentCalls = shim.requests.filter((r) => r.model === "idle-model");
        expect(agentCalls.length).toBeGreaterThanOrEqual(9);
        for (const r of agentCalls)
          expect([r.body.temperature, r.body.top_p, r.body.top_k, r.body.max_tokens]).toEqual([
            0, 0.8, 20, 16384,
          ]);
        const userCalls = shim.requests.filter((r) => r.model === "user-model");
        for (const r of userCalls)
          expect([r.body.temperature, r.body.max_tokens]).toEqual([0, 2048]);
        expect(shim.requests.filter((r) => r.model === "judge-model").length).toBeGreaterThan(0);
      } finally {
        await shim.close();
      }

      // --resume with a user simulator the server does not serve (HTTP 404): the finished tasks
      // are kept, the new one is a failed sample carrying the harness's message and E_POLICY_HTTP
      // (a server's failure, which a later --resume plays again), not a silent zero.
      const broken = await startShim({ "idle-model": () => idleAgentTurn() });
      try {
        const run = await runTau2({
          domains: ["retail"],
          agent: { kind: "model", endpoint: { baseURL: broken.baseURL, model: "idle-model" } },
          user: { baseURL: broken.baseURL, model: "missing-user" },
          judge: { baseURL: broken.baseURL, model: "idle-model" },
          settings: { trials: 1 },
          limit: 4,
          outDir: out,
          resume: true,
        });
        expect(run.resumed).toBe(3);
        const fresh = run.items.find((i) => i.id === "retail/3")!;
        expect(fresh.samples.map((s) => [s.success, s.failureCode])).toEqual([
          [false, "E_POLICY_HTTP"],
        ]);
        expect(fresh.samples[0]!.failure).toContain("missing-user");
        expect(tau2ScoresOf(run.items).retail).toEqual({
          passAt1: 0,
          tasks: 4,
          trials: 1,
          failedSamples: 1,
        });
      } finally {
        await broken.close();
      }
    },
    15 * MINUTES,
  );

  it(
    "a model server that is down stops the run with E_POLICY_UNAVAILABLE; --resume plays the spoiled tasks again",
    async () => {
      // TEST DOUBLE: the idle agent, the scripted user and a judge grading nothing, all on one
      // shim that answers HTTP 500 (after 0.5 s, so the run is stopped before another
      // simulation ends) while `down`.
      const state = { down: true };
      const unlessDown =
        (handler: ShimHandler): ShimHandler =>
        async (req) => {
          if (!state.down) return handler(req);
          await new Promise((resolve) => setTimeout(resolve, 500));
          throw new Error("the double is down");
        };
      const shim = await startShim({
        "idle-model": unlessDown(() => idleAgentTurn()),
        "user-model": unlessDown((req) => scriptedUserTurn(req.messages)),
        "judge-model": unlessDown(() => ({ content: '{"results": []}' })),
      });
      const out = join(dir, "outage");
      const args = [
        "eval",
        "tau2",
        "--domain",
        "retail",
        "--limit",
        "3",
        "--trials",
        "1",
        "--concurrency",
        "1",
        "--outage-after",
        "2",
        "--policy",
        "openai",
        "--base-url",
        shim.baseURL,
        "--model",
        "idle-model",
        "--user-base-url",
        shim.baseURL,
        "--user-model",
        "user-model",
        "--judge-base-url",
        shim.baseURL,
        "--judge-model",
        "judge-model",
        "--out",
        out,
        "--json",
      ];
      try {
        const stopped = await spadeAsync(args).done;
        expect(stopped.code, stopped.stderr).toBe(1);
        expect(stopped.stderr).toMatch(
          /\nspade: E_POLICY_UNAVAILABLE: 2 model requests in a row failed after their retries, none answered in between \(the last: E_POLICY_HTTP: InternalServerError: [^\n]*the double is down[^\n]*\); stopped so that no more work fails \(finished tasks are kept: once the model servers answer again \(spade doctor --base-url URL --model NAME checks one\), rerun with --resume and the same --out; tasks a trial of which a server failed are played again\)\n$/,
        );
        const summary = JSON.parse(stopped.stdout);
        expect(summary).toMatchObject({ items: 2, total: 3, interrupted: true });
        expect(
          readdirSync(join(out, "items"))
            .sort()
            .map((f) => {
              const item = JSON.parse(readFileSync(join(out, "items", f), "utf8"));
              return [item.id, item.samples.map((s: any) => s.failureCode)];
            }),
        ).toEqual([
          ["retail/0", ["E_POLICY_HTTP"]],
          ["retail/1", ["E_POLICY_HTTP"]],
        ]);

        state.down = false;
        const resumed = await spadeAsync([...args, "--resume"]).done;
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stderr).toContain("[tau2] retail: 3 of 3 task(s) to run\n");
        const after = JSON.parse(resumed.stdout);
        expect(after).toMatchObject({ items: 3, total: 3, resumed: 0, interrupted: false });
        expect(after.domains.retail).toEqual({
          passAt1: 0,
          tasks: 3,
          trials: 1,
          failedSamples: 0,
        });
      } finally {
        await shim.close();
      }
    },
    15 * MINUTES,
  );

  it(
    "exits 3 and says so when no trial could be played (--outage-after 0: the run goes on)",
    async () => {
      const base = [
        "eval",
        "tau2",
        "--domain",
        "retail",
        "--limit",
        "2",
        "--trials",
        "1",
        "--outage-after",
        "0",
        "--policy",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
      ];
      const r = await spadeAsync([...base, "--out", join(dir, "refused"), "--json"]).done;
      expect(r.code, r.stderr).toBe(3);
      expect(JSON.parse(r.stdout)).toMatchObject({
        items: 2,
        total: 2,
        interrupted: false,
        nothingPlayed: true,
        domains: { retail: { passAt1: 0, tasks: 2, trials: 1, failedSamples: 2 } },
      });
      const text = await spadeAsync([...base, "--out", join(dir, "refused-text")]).done;
      expect(text.code, text.stderr).toBe(3);
      expect(text.stdout).toMatch(
        /\nno sample could be played: all 2 failed \(first failure: InternalServerError: [^\n]*Connection error[^\n]*\)\n$/,
      );
    },
    15 * MINUTES,
  );

  it("a missing install is E_DEPENDENCY_MISSING naming the setup script", async () => {
    const err = await runTau2({
      domains: ["retail"],
      agent: { kind: "idle" },
      outDir: join(dir, "none"),
      resume: false,
      python: join(dir, "no-venv", "bin", "python"),
    }).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_DEPENDENCY_MISSING")).toBe(true);
    expect((err as Error).message).toContain("bash scripts/setup-tau2.sh");
  });
});
