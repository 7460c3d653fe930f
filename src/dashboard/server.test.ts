/**
 * The dashboard server over hand-built run stores: pages escape model-written text, bad folders
 * show their coded errors while other runs keep serving, the token and Host checks, live change
 * events, and the Play API played to success with the oracle.
 */
import Database from "better-sqlite3";
import { request } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { libraryNames, libraryPath, readProgramFile } from "../envs/index.js";
import { loadProgram } from "../sandbox/index.js";
import { EMPTY_STATS, RunStore } from "../store/index.js";
import { startDashboard, type Dashboard, type DashboardOptions } from "./server.js";
import { fileTempDir } from "../../test/cleanup.js";
import { testDashboardOptions } from "./testing/options.js";

const EVIL = `<img src=x onerror='alert(1)'>`;
const PROGRAM = `class Environment {
  static meta = { name: "evil-vault", skill: "Logical Deduction", description: "desc ${EVIL}", maxTurns: 2, tools: [] };
  reset(seed) { this.word = "amber"; return { observation: "Say </script><script>alert(2)</script>", info: {} }; }
  step(action) { const ok = action.answer === this.word; return { observation: ok ? "Correct." : "No.", reward: ok ? 1 : 0, terminated: true, truncated: false, info: {} }; }
  hint() { return "The answer is amber."; }
  solve() { return { text: "\\\\boxed{amber}" }; }
}`;

/** A run with one designed environment, one invalid attempt, two steps and a paired episode. */
function makeRun(dir: string): void {
  const store = RunStore.open(dir, "create");
  store.setMeta("config", JSON.stringify({ steps: 3, designer: "on", model: "m", seed: 7 }));
  const design = {
    step: 0,
    skill: "Logical Deduction",
    docId: "doc-1",
    prompt: [{ role: "user", content: `ground ${EVIL}` }],
    memoryRefs: [],
    tokens: null,
    duplicateOf: null,
  };
  store.insertDesign({
    ...design,
    slot: 0,
    seq: 0,
    attempt: 0,
    repairTurn: 0,
    completion: "c",
    program: PROGRAM,
    outcome: "valid",
    report: {
      ok: true,
      failures: [],
      checks: [{ code: "E_COMPILE" as never, ok: true, message: "compiles" }],
      meta: null,
    },
    trainable: true,
    envId: "d0-0",
  });
  store.insertDesign({
    ...design,
    slot: 1,
    seq: 0,
    attempt: 0,
    repairTurn: 0,
    completion: "x",
    program: "class Environment {}",
    outcome: "invalid",
    report: {
      ok: false,
      failures: ["E_ORACLE" as never],
      checks: [{ code: "E_ORACLE" as never, ok: false, message: `oracle failed ${EVIL}` }],
      meta: null,
    },
    trainable: true,
    envId: null,
  });
  store.insertEnvironment({
    id: "d0-0",
    name: `evil-vault${EVIL}`,
    skill: "Logical Deduction",
    description: "d",
    code: PROGRAM,
    meta: {
      name: "evil-vault",
      skill: "Logical Deduction",
      description: "d",
      maxTurns: 2,
      tools: [],
    },
    source: "designer",
    createdStep: 0,
    slot: 0,
    docId: "doc-1",
    hint: null,
    stats: { ...EMPTY_STATS, plays: 2, winRate: 0, regret: 1 },
  });
  const episode = (idx: number, hinted: boolean) => ({
    step: 0,
    envId: "d0-0",
    idx,
    seed: 11,
    hinted,
    return: hinted ? 1 : 0,
    success: hinted,
    turns: 1,
    failure: null,
    failureCode: null,
    rewards: [hinted ? 1 : 0],
    transcript: {
      firstObservation: hinted ? "Say it\n\nHINT: The answer is amber." : "Say it",
      outcome: "terminated",
      steps: [
        {
          action: {
            text: `\\boxed{${hinted ? "amber" : EVIL}}`,
            answer: null,
            toolCalls: [{ id: "c1", name: "lookup", arguments: { q: { deep: [1] } } }],
          },
          observation: "No.",
          reward: 0,
          terminated: true,
          truncated: false,
          toolResults: [{ id: "c1", content: "found 3" }],
        },
      ],
    },
    trace: null,
  });
  store.insertEpisode(episode(0, false));
  store.insertEpisode(episode(1, true));
  store.beginStep(0);
  store.completeStep(0, {
    step: 0,
    designSlots: 2,
    designsValid: 1,
    poolSize: 1,
    agentSuccess: 0,
    hintedSuccess: 1,
    meanRegret: 1,
    episodes: 2,
  });
  store.beginStep(1);
  store.completeStep(1, {
    step: 1,
    designSlots: 0,
    designsValid: 0,
    poolSize: 1,
    agentSuccess: 0.5,
    hintedSuccess: 1,
    meanRegret: 0.5,
    episodes: 2,
  });
  store.close();
}

const root = fileTempDir("spade-dash-");
const good = join(root, "good");
let dashboard: Dashboard;
let base: string;

/** Dashboard settings that open real programs (QuickJS) and the library. */
const options = (roots: string[], extra: Partial<DashboardOptions> = {}): DashboardOptions =>
  testDashboardOptions(roots, {
    openProgram: (source) => loadProgram(source, { backend: "quickjs" }),
    library: { names: libraryNames, source: (name) => readProgramFile(libraryPath(name)) },
    ...extra,
  });
const get = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(new URL(path, base), init);
  return { status: response.status, text: await response.text() };
};
const post = async (path: string, payload: unknown) =>
  (
    await fetch(new URL(path, base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    })
  ).json() as Promise<Record<string, any>>;

beforeAll(async () => {
  makeRun(good);
  mkdirSync(join(root, "not-a-run"));
  mkdirSync(join(root, "corrupt"));
  writeFileSync(
    join(root, "corrupt", "run.sqlite"),
    "this is not a database, just text that is long enough to be read as a header page".repeat(20),
  );
  makeRun(join(root, "newer"));
  const db = new Database(join(root, "newer", "run.sqlite"));
  db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
  db.close();
  dashboard = await startDashboard(
    options([good, join(root, "not-a-run"), join(root, "corrupt"), join(root, "newer")]),
  );
  base = dashboard.url;
});
afterAll(() => dashboard.close());

describe("pages", () => {
  it("lists every run, good ones with their steps and status, bad ones with their coded error", async () => {
    const { status, text } = await get("/");
    expect(status).toBe(200);
    expect(text).toMatch(/<a href="\/run\/r0">good<\/a>/);
    expect(text).toContain('<td class="status status-stopped">stopped</td>');
    expect(text).toContain('<td class="steps">2 / 3</td>');
    expect(text).toMatch(
      /not-a-run<\/td><td colspan="5"><div class="error"><code class="error-code">E_NOT_FOUND<\/code> no run in/,
    );
    expect(text).toMatch(
      /corrupt<\/td><td colspan="5"><div class="error"><code class="error-code">E_STORE_CORRUPT<\/code>/,
    );
    expect(text).toMatch(
      /newer<\/td><td colspan="5"><div class="error"><code class="error-code">E_CONFIG<\/code> .* has schema version 99, this SPADE reads 1/,
    );
  });

  it("shows a run whose writer holds its lock as running, and stopped again once it lets go", async () => {
    const writer = RunStore.open(good, "resume");
    try {
      expect((await get("/")).text).toContain('<td class="status status-running">running</td>');
    } finally {
      writer.close();
    }
    expect((await get("/")).text).toContain('<td class="status status-stopped">stopped</td>');
  });

  it("escapes every model-written string (names, programs, prompts, reports, transcripts)", async () => {
    for (const path of [
      "/run/r0/archive",
      "/run/r0/env/d0-0",
      "/run/r0/designs",
      "/run/r0/episode?step=0&env=d0-0&seed=11",
      "/run/r0/episodes",
    ]) {
      const { status, text } = await get(path);
      expect(status, path).toBe(200);
      expect(text, path).not.toContain("<img src=x");
      expect(text, path).not.toContain("<script>alert(2)");
    }
    expect((await get("/run/r0/archive")).text).toContain(
      "evil-vault&lt;img src=x onerror=&#39;alert(1)&#39;&gt;",
    );
    expect((await get("/run/r0/designs")).text).toContain(
      '<code class="failure-code">E_ORACLE</code> oracle failed &lt;img src=x',
    );
    const env = (await get("/run/r0/env/d0-0")).text;
    expect(env).toContain('<span class="hljs-keyword">class</span>');
    expect(env).toContain("&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(env).toContain("ground &lt;img");
  });

  it("shows the unhinted and hinted plays of one seed side by side", async () => {
    const { text } = await get("/run/r0/episode?step=0&env=d0-0&seed=11");
    expect(text).toContain(
      '<p class="episode-where">evil-vault&lt;img src=x onerror=&#39;alert(1)&#39;&gt; (d0-0), step 0, seed 11</p>',
    );
    expect(text).toMatch(
      /<section class="transcript unhinted"><h2>unhinted: return 0, no success, 1 turns<\/h2>/,
    );
    expect(text).toMatch(
      /<section class="transcript hinted"><h2>hinted: return 1, success, 1 turns<\/h2>[\s\S]*HINT: The answer is amber\./,
    );
    expect(text).toContain(
      '<div class="tool-call">call <code>lookup</code> <pre>{\n &quot;q&quot;: {\n  &quot;deep&quot;: [\n   1\n  ]\n }\n}</pre></div>',
    );
    expect(text).toContain('<div class="tool-result">result c1: <pre>found 3</pre></div>');
  });

  it("embeds the overview's series as JSON that cannot close its script element", async () => {
    const { text } = await get("/run/r0");
    const json =
      /<script type="application\/json" id="chart-data">(.*?)<\/script>/s.exec(text)?.[1] ?? "";
    const charts = JSON.parse(json) as Array<{
      id: string;
      runs: Array<{ steps: number[]; values: unknown[][] }>;
    }>;
    expect(charts.find((c) => c.id === "valid-rate")?.runs[0]).toMatchObject({
      steps: [0, 1],
      values: [[0.5, null]],
    });
    expect(charts.find((c) => c.id === "success")?.runs[0]?.values).toEqual([
      [0, 0.5],
      [1, 1],
    ]);
    expect(charts.find((c) => c.id === "skill-success")?.runs[0]).toMatchObject({
      labels: ["Logical Deduction"],
      values: [[0, null]],
    });
  });

  it("serves a bad run's pages with its coded error and keeps serving the good one", async () => {
    expect(await get("/run/r2")).toMatchObject({
      status: 500,
      text: expect.stringContaining('<code class="error-code">E_STORE_CORRUPT</code>'),
    });
    expect(await get("/run/r1/archive")).toMatchObject({
      status: 404,
      text: expect.stringContaining('<code class="error-code">E_NOT_FOUND</code>'),
    });
    expect(await get("/run/r9")).toMatchObject({
      status: 404,
      text: expect.stringContaining("no run r9 on this dashboard"),
    });
    expect((await get("/run/r0")).status).toBe(200);
  });

  it("reports a store locked by a writer as E_RUN_LOCKED", async () => {
    const db = new Database(join(good, "run.sqlite"));
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    try {
      expect(await get("/run/r0")).toMatchObject({
        status: 503,
        text: expect.stringContaining('<code class="error-code">E_RUN_LOCKED</code>'),
      });
    } finally {
      db.exec("COMMIT");
      db.close();
    }
    expect((await get("/run/r0")).status).toBe(200);
  });

  it("serves uPlot and the page script from the package, and nothing else under /static", async () => {
    expect((await get("/static/uPlot.iife.min.js")).text).toContain("uPlot");
    expect((await get("/static/app.js")).text).toContain("new uPlot(");
    expect((await get("/static/..%2Fpackage.json")).status).toBe(404);
  });

  it("refuses requests whose Host is not a loopback name", async () => {
    // fetch may not set Host; node:http may.
    const status = await new Promise<number | undefined>((done, fail) => {
      request(
        new URL("/", base),
        { headers: { host: "evil.example:80" } },
        (res) => (res.resume(), done(res.statusCode)),
      )
        .on("error", fail)
        .end();
    });
    expect(status).toBe(401);
  });
});

describe("play", () => {
  it("plays an archived environment to success with the oracle, after showing the hint", async () => {
    const start = await post("/api/play/start", { source: "run:r0:d0-0", seed: 3 });
    expect(start).toMatchObject({
      name: "evil-vault",
      seed: 3,
      turns: 0,
      over: false,
      say: "Say </script><script>alert(2)</script>",
    });
    expect(await post("/api/play/hint", { session: start.session })).toMatchObject({
      say: "HINT: The answer is amber.",
    });
    const moved = await post("/api/play/oracle", { session: start.session });
    expect(moved).toMatchObject({ turns: 1, return: 1, over: true, success: true });
    expect(moved.say).toBe(
      'oracle: {"text":"\\\\boxed{amber}","answer":"amber","toolCalls":[]}\nCorrect.\n(reward 1, return 1)',
    );
  });

  it("answers unknown sources and sessions with coded errors", async () => {
    expect(await post("/api/play/start", { source: "lib:no-such-env" })).toEqual({
      error: {
        code: "E_NOT_FOUND",
        message: "no environment lib:no-such-env (choose one from the list)",
      },
    });
    expect((await post("/api/play/reply", { session: "nope", text: "hi" })).error.code).toBe(
      "E_NOT_FOUND",
    );
    const response = await fetch(new URL("/api/play/start", base), {
      method: "POST",
      body: "source=lib:x",
    });
    expect(response.status).toBe(415);
  });
});

describe("live updates and the token", () => {
  it("announces a changed store on /events", async () => {
    const controller = new AbortController();
    const response = await fetch(new URL("/events", base), { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const store = RunStore.open(good, "resume");
    store.beginStep(2);
    store.close();
    let seen = "";
    while (!seen.includes("event: change"))
      seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(seen).toContain('event: change\ndata: {"run":"r0"}');
  });

  it("on a non-loopback host serves only requests that carry the token", async () => {
    const open = await startDashboard(options([good], { host: "0.0.0.0", token: "s3cret" }));
    try {
      const port = new URL(open.url).port;
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(401);
      const first = await fetch(`http://127.0.0.1:${port}/?token=s3cret`);
      expect(first.status).toBe(200);
      const cookie = first.headers.get("set-cookie") ?? "";
      expect(cookie).toContain("spade_token=s3cret; HttpOnly; SameSite=Strict");
      expect(
        (
          await fetch(`http://127.0.0.1:${port}/run/r0`, {
            headers: { cookie: "spade_token=s3cret" },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await fetch(`http://127.0.0.1:${port}/run/r0`, {
            headers: { cookie: "spade_token=wrong" },
          })
        ).status,
      ).toBe(401);
      // Wrong tokens of the same length, another length, and empty: 401 by query and by cookie.
      const statuses: number[] = [];
      for (const wrong of ["s3creT", "s3cre", "s3cret-and-more", ""]) {
        statuses.push((await fetch(`http://127.0.0.1:${port}/?token=${wrong}`)).status);
        const headers = { cookie: `spade_token=${wrong}` };
        statuses.push((await fetch(`http://127.0.0.1:${port}/`, { headers })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401]);
    } finally {
      await open.close();
    }
  });

  it("answers a request target that is not a URL with 400, before the token check (it ended the process)", async () => {
    const open = await startDashboard(options([good], { host: "0.0.0.0", token: "s3cret" }));
    try {
      const port = Number(new URL(open.url).port);
      // node:http lets `//[` through as the target; fetch cannot send it, a raw socket can.
      const statusLine = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () =>
          socket.write("GET //[ HTTP/1.1\r\nHost: box\r\nConnection: close\r\n\r\n"),
        );
        let text = "";
        socket.on("data", (chunk) => (text += chunk));
        socket.on("close", () => resolve(text.split("\r\n")[0] ?? ""));
        socket.on("error", reject);
      });
      expect(statusLine).toBe("HTTP/1.1 400 Bad Request");
      expect((await fetch(`http://127.0.0.1:${port}/?token=s3cret`)).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
