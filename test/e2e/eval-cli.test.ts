/**
 * `spade eval SUITE|bfcl|acebench --policy openai` through the real, built command against the
 * fake OpenAI-compatible server (a test double) scripted to answer some items right and others
 * wrong: exact accuracies, results files, `--resume`, failed samples. `npm test` builds first.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { benchmarksDir } from "../../src/eval/acebench/testing/bench-dir.js";
import { loadAceEntries } from "../../src/eval/acebench/index.js";
import { ADDED_FUNCTIONS_PROMPT, BFCL_CATEGORIES, loadEntries } from "../../src/eval/bfcl/index.js";
import { groundTruthCall } from "../../src/eval/bfcl/testing/scripted-policies.js";
import { loadSuite } from "../../src/eval/suites/index.js";
import {
  DEFAULT_ISOLATION_COMMANDS,
  DEFAULT_PYTHON_LIMITS,
  planIsolation,
} from "../../src/eval/suites/code/index.js";
import { resolveCgroups } from "../../src/eval/suites/code/cgroup-find.js";
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeReply,
  type RecordedRequest,
} from "../fakes/openai-server.js";
import { skipWithout } from "../missing.js";
import { spade, spadeAsync } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const DATA = benchmarksDir();
const HAVE_DATA = !skipWithout(
  existsSync(join(DATA, "gsm8k")) &&
    existsSync(join(DATA, "bfcl")) &&
    existsSync(join(DATA, "acebench"))
    ? null
    : `gsm8k, bfcl and acebench not found in ${DATA}`,
);
const dir = fileTempDir("spade-eval-e2e-");

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const model = (url: string, name = "agent-m") => [
  "--policy",
  "openai",
  "--base-url",
  url,
  "--model",
  name,
  "--data",
  DATA,
  "--json",
];
const lastUser = (r: RecordedRequest): string =>
  [...r.body.messages].reverse().find((m: any) => m.role === "user")?.content ?? "";
const assistantCount = (r: RecordedRequest): number =>
  r.body.messages.filter((m: any) => m.role === "assistant").length;
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe.skipIf(!HAVE_DATA)(
  `spade eval SUITE --policy openai ${HAVE_DATA ? "" : `(benchmarks not found at ${DATA})`}`,
  () => {
    it("gsm8k: exact accuracy, a results file per item, a server failure counted as failed and wrong; --resume plays new items and the one the server failed", async () => {
      const items = await loadSuite("gsm8k", { limit: 4, dataDir: DATA });
      // Item 0 and 3 answered with their reference, item 1 wrong, item 2 a non-retryable server error.
      server = await startFakeOpenAIServer((r): FakeReply => {
        const i = items.findIndex((it) => it.prompt === lastUser(r));
        if (i === 2) return { kind: "status", status: 400, message: "bad request" };
        return { kind: "text", content: i === 1 ? "\\boxed{-7}" : (items[i]?.oracleText ?? "") };
      });
      const out = join(dir, "gsm8k");
      const first = await spade([
        "eval",
        "gsm8k",
        ...model(server.baseURL),
        "--limit",
        "3",
        "--out",
        out,
      ]);
      expect(first.code).toBe(0);
      const summary = JSON.parse(first.stdout);
      expect(summary).toMatchObject({
        benchmark: "gsm8k",
        model: "agent-m",
        policy: "openai",
        samples: 1,
        items: 3,
        total: 3,
        resumed: 0,
        interrupted: false,
        failedSamples: 1,
      });
      expect(summary.accuracy).toBe(1 / 3);
      expect(summary.groups).toEqual([
        {
          group: "gsm8k",
          items: 3,
          samples: 3,
          correctSamples: 1,
          failedSamples: 1,
          accuracy: 1 / 3,
        },
      ]);
      expect(readdirSync(join(out, "items")).sort()).toEqual([
        "gsm8k%2F0.json",
        "gsm8k%2F1.json",
        "gsm8k%2F2.json",
      ]);
      const failed = readJson(join(out, "items", "gsm8k%2F2.json"));
      expect(failed.samples[0]).toMatchObject({
        success: false,
        failureStage: "agent",
        failureCode: "E_POLICY_HTTP",
      });
      const right = readJson(join(out, "items", "gsm8k%2F0.json"));
      expect(right).toMatchObject({ id: "gsm8k/0", group: "gsm8k", accuracy: 1 });
      expect(right.samples[0].transcript.messages.map((m: any) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
      ]);
      expect(readJson(join(out, "summary.json"))).toEqual(summary);
      expect(first.stderr).toContain("[gsm8k] 3/3 items, accuracy 0.333, failed samples 1");

      const before = server.requests.length;
      const again = await spade([
        "eval",
        "gsm8k",
        ...model(server.baseURL),
        "--limit",
        "4",
        "--out",
        out,
        "--resume",
      ]);
      expect(again.code).toBe(0);
      // Item 2's sample failed on the server (E_POLICY_HTTP), so it says nothing of the model: played again.
      expect(server.requests.slice(before).map(lastUser).sort()).toEqual(
        [items[2]!.prompt, items[3]!.prompt].sort(),
      );
      expect(JSON.parse(again.stdout)).toMatchObject({
        items: 4,
        resumed: 2,
        accuracy: 0.5,
        failedSamples: 1,
      });

      const fresh = await spade([
        "eval",
        "gsm8k",
        ...model(server.baseURL),
        "--limit",
        "1",
        "--out",
        out,
      ]);
      expect(fresh.code).toBe(2);
      expect(fresh.stderr).toContain("E_CONFIG");
    });

    it("Ctrl-C keeps finished items and exits 130; --resume finishes the rest", async () => {
      const items = await loadSuite("gsm8k", { limit: 3, dataDir: DATA });
      let hang = true;
      // Item 0 is answered; item 1's request hangs until the run is interrupted.
      server = await startFakeOpenAIServer((r): FakeReply => {
        const i = items.findIndex((it) => it.prompt === lastUser(r));
        if (i === 1 && hang) return { kind: "hang" };
        return { kind: "text", content: items[i]?.oracleText ?? "" };
      });
      const out = join(dir, "interrupted");
      const first = join(out, "items", "gsm8k%2F0.json");
      // In its own process group, as a terminal runs it, so the whole group can be signalled.
      const { child, done } = spadeAsync(
        [
          "eval",
          "gsm8k",
          ...model(server.baseURL),
          "--limit",
          "3",
          "--concurrency",
          "1",
          "--out",
          out,
        ],
        {},
        { detached: true },
      );
      const poll = setInterval(() => {
        if (!existsSync(first) || server!.requests.length < 2) return;
        clearInterval(poll);
        process.kill(-child.pid!, "SIGINT"); // the whole group, as Ctrl-C in a terminal
      }, 50);
      child.on("close", () => clearInterval(poll));
      const r = await done;
      expect(r.code).toBe(130);
      expect(r.stderr).toContain(
        `spade: interrupted after 1/3 items; rerun with --resume --out ${out}`,
      );
      expect(JSON.parse(r.stdout)).toMatchObject({
        items: 1,
        total: 3,
        interrupted: true,
        accuracy: 1,
      });
      expect(readdirSync(join(out, "items"))).toEqual(["gsm8k%2F0.json"]);

      hang = false;
      const before = server.requests.length;
      const again = await spade([
        "eval",
        "gsm8k",
        ...model(server.baseURL),
        "--limit",
        "3",
        "--out",
        out,
        "--resume",
      ]);
      expect(again.code).toBe(0);
      expect(server.requests.slice(before).map(lastUser).sort()).toEqual(
        [items[1]!.prompt, items[2]!.prompt].sort(),
      );
      expect(JSON.parse(again.stdout)).toMatchObject({
        items: 3,
        resumed: 1,
        interrupted: false,
        accuracy: 1,
      });
    });

    it("math500 --samples 2: pass@1 averaged over the samples of each item", async () => {
      const items = await loadSuite("math500", { limit: 2, dataDir: DATA });
      const seen = new Map<string, number>();
      // First sample of each item right, second wrong.
      server = await startFakeOpenAIServer((r): FakeReply => {
        const prompt = lastUser(r);
        const n = seen.get(prompt) ?? 0;
        seen.set(prompt, n + 1);
        return {
          kind: "text",
          content:
            n === 0
              ? (items.find((it) => it.prompt === prompt)?.oracleText ?? "")
              : "\\boxed{\\text{no idea}}",
        };
      });
      const r = await spade([
        "eval",
        "math500",
        ...model(server.baseURL),
        "--limit",
        "2",
        "--samples",
        "2",
        "--concurrency",
        "1",
        "--out",
        join(dir, "math500"),
      ]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        samples: 2,
        items: 2,
        accuracy: 0.5,
        overall: { items: 2, samples: 4, correctSamples: 2, failedSamples: 0, accuracy: 0.5 },
      });
    });
  },
);

describe.skipIf(!HAVE_DATA)("spade eval humaneval: the sandbox its checks ran in", () => {
  it("is recorded in run.json: isolation, cgroups per run (or none), limits", async () => {
    const cgroups = await resolveCgroups("auto");
    const isolation = (await planIsolation(DEFAULT_ISOLATION_COMMANDS, false)).mode;
    const recorded = async (name: string, flags: string[]) => {
      const out = join(dir, name);
      const args = ["--policy", "oracle", "--limit", "2", "--data", DATA, "--out", out];
      const r = await spade(["eval", "humaneval", ...args, "--json", ...flags]);
      expect([r.code, JSON.parse(r.stdout).accuracy]).toEqual([0, 1]);
      return readJson(join(out, "run.json")).settings;
    };
    const limits = { ...DEFAULT_PYTHON_LIMITS };
    expect(await recorded("off", ["--cgroups", "off"])).toEqual({
      policy: "oracle",
      limit: 2,
      sandbox: { isolation, cgroups: null, limits },
    });
    const controllers = (["memory", "cpu", "pids"] as const).filter((c) => cgroups?.dirs[c]);
    expect((await recorded("auto", [])).sandbox).toEqual({
      isolation,
      cgroups: cgroups && { version: cgroups.version, controllers },
      limits,
    });
  });
});

describe.skipIf(!HAVE_DATA)("spade eval bfcl --policy openai", () => {
  it("ground-truth tool calls score 1, wrong answers 0; per category and the leaderboard's unweighted overall; holdout tools offered natively", async () => {
    const bfclDir = join(DATA, "bfcl");
    const entries = BFCL_CATEGORIES.flatMap((c) => loadEntries(bfclDir, c).slice(0, 2));
    let episode = -1;
    const episodeOf: number[] = [];
    // Episodes run one at a time (--concurrency 1); a request holding one message starts the next entry.
    // Entry 0 of each category gets its ground truth as tool calls (then "Done." to end the turn), entry 1 a refusal.
    server = await startFakeOpenAIServer((r): FakeReply => {
      if (r.body.messages.length === 1) episode++;
      episodeOf[r.index] = episode;
      const entry = entries[episode]!;
      if (episode % 2 === 1) return { kind: "text", content: "I cannot do that." };
      const plan: FakeReply[] = entry.groundTruth.flatMap((calls, turn): FakeReply[] => {
        if (calls.length === 0) return [{ kind: "text", content: "I need more information." }];
        const toolCalls = calls.map((source, i) => {
          const call = groundTruthCall(entry, source);
          return {
            id: `c${turn}_${i}`,
            name: call.name,
            arguments: JSON.stringify(call.arguments),
          };
        });
        return [
          { kind: "tool_calls", calls: toolCalls },
          { kind: "text", content: "Done." },
        ];
      });
      return plan[assistantCount(r)] ?? { kind: "text", content: "Done." };
    });
    const out = join(dir, "bfcl");
    const r = await spade([
      "eval",
      "bfcl",
      ...model(server.baseURL),
      "--limit",
      "2",
      "--concurrency",
      "1",
      "--out",
      out,
    ]);
    expect(r.stderr).not.toContain("unexpected");
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.groups.map((g: any) => [g.group, g.items, g.accuracy])).toEqual(
      BFCL_CATEGORIES.map((c) => [c, 2, 0.5]),
    );
    expect(summary.leaderboard).toEqual({
      categories: { base: 0.5, miss_func: 0.5, miss_param: 0.5, long_context: 0.5 },
      overall: 0.5,
    });
    const wrong = readJson(join(out, "items", "multi_turn_base_1.json"));
    expect(wrong.samples[0].metrics).toMatchObject({
      valid: false,
      errorType: "multi_turn:empty_turn_model_response",
      failedTurn: 0,
    });
    expect(readJson(join(out, "items", "multi_turn_miss_func_0.json")).samples[0].metrics).toEqual({
      valid: true,
    });

    // FC form: no system prompt; at miss_func_0's holdout turn (3) `sort` arrives as a tool, the message is the sentence alone.
    expect(server.requests.every((q) => q.body.messages[0].role === "user")).toBe(true);
    expect(entries[2]!.id).toBe("multi_turn_miss_func_0");
    const missFunc = server.requests.filter((q) => episodeOf[q.index] === 2);
    const holdout = missFunc.find((q) => lastUser(q) === ADDED_FUNCTIONS_PROMPT)!;
    const toolNames = (q: RecordedRequest) => q.body.tools.map((t: any) => t.function.name);
    expect(toolNames(holdout)).toContain("sort");
    expect(toolNames(missFunc[0]!)).not.toContain("sort");
  });
});

describe.skipIf(!HAVE_DATA)(
  "spade eval acebench --policy openai (multi-turn, scripted user model)",
  () => {
    it("scores end-to-end and process accuracy as upstream; the agent's text reaches the simulated user", async () => {
      const [grace0, grace1] = loadAceEntries(join(DATA, "acebench"), "en", "multi_turn").slice(
        0,
        2,
      );
      const path0 = grace0!.mileStone as string[];
      let episode = -1;
      // The user model (model "user-sim") opens, then says "Go ahead."; the agent greets, then entry 0
      // sends its milestones and finishes; entry 1 sends only its first milestone (1 of 5) and finishes.
      server = await startFakeOpenAIServer((r): FakeReply => {
        if (r.body.model === "user-sim")
          return {
            kind: "text",
            content:
              r.body.messages.length === 2 ? "I want to send a message to Frank." : "Go ahead.",
          };
        if (r.body.messages.length === 1) episode++;
        const plan =
          episode === 0
            ? ["How can I help?", ...path0, "finish conversation"]
            : ["How can I help?", (grace1!.mileStone as string[])[0]!, "finish conversation"];
        return { kind: "text", content: plan[assistantCount(r)] ?? "finish conversation" };
      });
      const out = join(dir, "acebench");
      const r = await spade([
        "eval",
        "acebench",
        ...model(server.baseURL),
        "--user-model",
        "user-sim",
        "--lang",
        "en",
        "--category",
        "multi_turn",
        "--limit",
        "2",
        "--concurrency",
        "1",
        "--out",
        out,
      ]);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary.sets).toEqual([
        { set: "en/multi_turn", endToEndAccuracy: 0.5, processAccuracy: 0.6, correct: 1, total: 2 },
      ]);
      expect(summary.languages).toEqual([{ lang: "en", agentSummary: null }]);
      expect(summary.accuracy).toBe(0.5);
      expect(
        readJson(join(out, "items", "en%2Fagent_multi_turn_1.json")).samples[0].metrics,
      ).toMatchObject({ endToEnd: false, process: 0.2 });
      const userCalls = server.requests.filter((q) => q.body.model === "user-sim");
      expect(userCalls[0]!.body.messages[0].role).toBe("system");
      expect(userCalls[0]!.body.messages[0].content).toContain(grace0!.question);
      expect(userCalls[1]!.body.messages.at(-1)).toEqual({
        role: "user",
        content: "How can I help?",
      });
      const agentFirst = server.requests.find((q) => q.body.model === "agent-m")!;
      expect(agentFirst.body.messages).toHaveLength(1);
      expect(agentFirst.body.messages[0].content).toMatch(/I want to send a message to Frank\.$/);
    });

    it("exits 2 with E_CONFIG when multi-turn entries have no user model", async () => {
      const r = await spade([
        "eval",
        "acebench",
        "--policy",
        "oracle",
        "--category",
        "multi_turn",
        "--data",
        DATA,
        "--out",
        join(dir, "none"),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        "spade: E_CONFIG: multi-turn ACEBench entries need a simulated user played by a model (pass --user-model NAME --user-base-url URL (or --category multi_step))\n",
      );
    });
  },
);
