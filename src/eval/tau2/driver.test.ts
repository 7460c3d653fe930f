// The driver protocol and failure codes, against TEST DOUBLE drivers: shell scripts standing in
// for the tau2 environment's Python, writing scripted events to descriptor 3.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../../test/cleanup.js";
import { isSpadeError } from "../../errors.js";
import { OutageBreaker } from "../../policy/index.js";
import { type RunTau2Options, runDriver, runTau2, type Tau2Event } from "./index.js";

const dir = fileTempDir("spade-tau2-driver-");
let n = 0;

/** TEST DOUBLE: a "python" that ignores its script and runs `body` (sh), stdin = the request. */
function fakePython(body: string): string {
  const path = join(dir, `python-${n++}`);
  writeFileSync(path, `#!/bin/sh\ncat > "${path}.request"\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}
const ev = (value: object) => `echo '${JSON.stringify(value)}' >&3`;
const sim = (domain: string, taskId: string, seed: number, reward: number, reason = "user_stop") =>
  ev({
    event: "simulation",
    domain,
    taskId,
    seed,
    reward,
    success: reward === 1,
    terminationReason: reason,
    messages: 6,
    rewardBreakdown: { DB: reward },
    note: null,
  });
const request = {
  domains: ["retail"],
  split: "base",
  limit: null,
  skip: {},
  trials: 1,
  max_steps: 5,
  max_errors: 10,
  max_concurrency: 1,
  seed: 300,
  agent: { model: "openai/m", args: {} },
  user: { model: "openai/m", args: {} },
  judge: { model: "openai/m", args: {} },
  agent_impl: "llm_agent" as const,
  evaluation_type: "all",
  save_dir: null,
  ground_truth_file: null,
  log_level: "ERROR",
};

describe("runDriver", () => {
  it("sends the request on stdin and hands over the events in order", async () => {
    const python = fakePython(
      [
        ev({ event: "ready", dataDir: "/d", version: "26.3" }),
        'echo "not json" >&3',
        ev({ event: "done" }),
      ].join("\n"),
    );
    const events: Tau2Event[] = [];
    expect(await runDriver({ request, python, onEvent: (e) => void events.push(e) })).toEqual({
      interrupted: false,
    });
    expect(events).toEqual([{ event: "ready", dataDir: "/d", version: "26.3" }, { event: "done" }]);
    expect(JSON.parse(readFileSync(`${python}.request`, "utf8"))).toEqual(request);
  });

  it("turns the driver's error event into its code, and a crash into E_TAU2_HARNESS with the output's tail", async () => {
    const missing = fakePython(
      `${ev({ event: "error", code: "E_DEPENDENCY_MISSING", message: "no litellm", nextStep: "run setup" })}\nexit 2`,
    );
    const a = await runDriver({ request, python: missing, onEvent: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(isSpadeError(a, "E_DEPENDENCY_MISSING")).toBe(true);
    expect((a as Error).message).toBe("no litellm (run setup)");
    const crash = fakePython('echo "Traceback: boom" >&2\nexit 1');
    const b = await runDriver({ request, python: crash, onEvent: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(isSpadeError(b, "E_TAU2_HARNESS")).toBe(true);
    expect((b as Error).message).toContain("the tau2 driver exited with code 1: Traceback: boom");
  });

  it("stops the driver when the signal aborts and reports the run as interrupted", async () => {
    const python = fakePython(`${ev({ event: "ready", dataDir: "/d", version: null })}\nsleep 30`);
    const controller = new AbortController();
    const started = Date.now();
    const outcome = await runDriver({
      request,
      python,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.event === "ready") controller.abort();
      },
    });
    expect(outcome).toEqual({ interrupted: true });
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe("runTau2 with a scripted driver", () => {
  /** A retail run of a model agent (whose server the scripted driver never calls). */
  const retailModelRun = {
    domains: ["retail"],
    agent: { kind: "model", endpoint: { baseURL: "http://127.0.0.1:9/v1", model: "m" } },
  } satisfies Partial<RunTau2Options>;
  const tasks = ev({
    event: "tasks",
    domain: "retail",
    taskIds: ["0", "1", "2"],
    todo: ["0", "1", "2"],
  });

  it("writes a task's file once all its trials are scored; Ctrl-C keeps finished tasks; --resume skips them", async () => {
    const out = join(dir, "run");
    // Task 0: both trials; task 1: one of two, then the run is interrupted.
    const python = fakePython(
      [
        tasks,
        sim("retail", "0", 11, 1),
        sim("retail", "1", 11, 0),
        sim("retail", "0", 22, 0),
        "sleep 30",
      ].join("\n"),
    );
    const controller = new AbortController();
    let seen = 0;
    const run = await runTau2({
      ...retailModelRun,
      settings: { trials: 2 },
      outDir: out,
      resume: false,
      python,
      signal: controller.signal,
      onProgress: (e) => {
        if (e.event === "simulation" && ++seen === 3) controller.abort();
      },
    });
    expect(run.interrupted).toBe(true);
    expect(run.items.map((i) => [i.id, i.accuracy, i.samples.map((s) => s.seed)])).toEqual([
      ["retail/0", 0.5, [11, 22]],
    ]);
    expect(existsSync(join(out, "items", "retail%2F0.json"))).toBe(true);
    expect(existsSync(join(out, "items", "retail%2F1.json"))).toBe(false);

    // Resumed: the driver is asked to skip task 0; a simulation that raised is a coded failed sample.
    const resumed = fakePython(
      [
        ev({ event: "tasks", domain: "retail", taskIds: ["0", "1", "2"], todo: ["1", "2"] }),
        sim("retail", "1", 11, 1),
        sim("retail", "1", 22, 1),
        ev({
          event: "simulation_error",
          domain: "retail",
          taskId: "2",
          seed: 11,
          message: "APIConnectionError: user simulator unreachable",
        }),
        sim("retail", "2", 22, 0, "agent_error"),
        ev({
          event: "domain_done",
          domain: "retail",
          passHatK: { "1": 0.5 },
          avgReward: 0.5,
          simulations: 4,
        }),
        ev({ event: "done" }),
      ].join("\n"),
    );
    const again = await runTau2({
      ...retailModelRun,
      settings: { trials: 2 },
      outDir: out,
      resume: true,
      python: resumed,
    });
    expect(JSON.parse(readFileSync(`${resumed}.request`, "utf8")).skip).toEqual({ retail: ["0"] });
    expect(again.resumed).toBe(1);
    expect(again.items.map((i) => [i.id, i.accuracy])).toEqual([
      ["retail/0", 0.5],
      ["retail/1", 1],
      ["retail/2", 0],
    ]);
    const failed = again.items[2]!.samples;
    expect(failed.map((s) => [s.failureCode, s.failure])).toEqual([
      ["E_TAU2_HARNESS", "APIConnectionError: user simulator unreachable"],
      ["E_TAU2_HARNESS", "tau2 ended the simulation with agent_error"],
    ]);
    expect(again.reports).toEqual([
      { domain: "retail", passHatK: { "1": 0.5 }, avgReward: 0.5, simulations: 4 },
    ]);
  });

  it("simulations a server failed count toward the outage breaker, which stops the run; --resume plays their tasks again", async () => {
    const out = join(dir, "outage");
    const failed = (taskId: string, code: string | null) =>
      ev({
        event: "simulation_error",
        domain: "retail",
        taskId,
        seed: 11,
        message: `InternalServerError: ${taskId} down`,
        code,
      });
    // after = 2: 0 fails (1), 1 is scored (reset), 2 fails (1), 3 raises something else (no
    // change), 4 fails (2: trip); 5 would end after the stop.
    const python = fakePython(
      [
        ev({
          event: "tasks",
          domain: "retail",
          taskIds: ["0", "1", "2", "3", "4", "5"],
          todo: ["0", "1", "2", "3", "4", "5"],
        }),
        failed("0", "E_POLICY_HTTP"),
        sim("retail", "1", 11, 1),
        failed("2", "E_POLICY_TIMEOUT"),
        failed("3", null),
        failed("4", "E_POLICY_HTTP"),
        "sleep 30",
        failed("5", "E_POLICY_HTTP"),
      ].join("\n"),
    );
    const outage = new OutageBreaker({ after: 2, nextStep: "resume" });
    const run = await runTau2({
      ...retailModelRun,
      settings: { trials: 1 },
      outDir: out,
      resume: false,
      python,
      signal: outage.signal,
      outage,
    });
    expect(run.interrupted).toBe(true);
    expect(outage.error?.code).toBe("E_POLICY_UNAVAILABLE");
    expect(outage.error?.message).toContain(
      "(the last: E_POLICY_HTTP: InternalServerError: 4 down)",
    );
    expect(run.items.map((i) => [i.id, i.samples[0]!.failureCode])).toEqual([
      ["retail/0", "E_POLICY_HTTP"],
      ["retail/1", null],
      ["retail/2", "E_POLICY_TIMEOUT"],
      ["retail/3", "E_TAU2_HARNESS"],
      ["retail/4", "E_POLICY_HTTP"],
    ]);

    // Resumed: only the tasks that were scored or failed otherwise are skipped.
    const resumed = fakePython(ev({ event: "done" }));
    await runTau2({
      ...retailModelRun,
      settings: { trials: 1 },
      outDir: out,
      resume: true,
      python: resumed,
    });
    expect(JSON.parse(readFileSync(`${resumed}.request`, "utf8")).skip).toEqual({
      retail: ["1", "3"],
    });
  });

  it("a fresh run refuses a folder that holds results", async () => {
    const err = await runTau2({
      ...retailModelRun,
      outDir: join(dir, "run"),
      resume: false,
      python: fakePython("exit 0"),
    }).catch((e: unknown) => e);
    expect(isSpadeError(err, "E_CONFIG")).toBe(true);
  });
});
