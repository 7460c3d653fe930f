/**
 * `spade dashboard` in real headless Chromium (Debian's, installed by scripts/setup-browser.sh,
 * driven by playwright-core): a run made by `spade run` against the scripted self-play double,
 * every page as a person sees it, filters clicked, an environment played to success with the
 * oracle, a second run followed live, bad folders with their coded errors, and the overview of a
 * 400-step, 10,000-episode run drawn in under 2 s. Screenshots go to test-artifacts/dashboard/.
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeBigRun } from "../../src/bench/big-run.js";
import { RunStore } from "../../src/store/index.js";
import { startSelfPlayServer, type SelfPlayServerOptions } from "../fakes/selfplay-server.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import type { SpadeProcess } from "./cli.js";
import { DESIGNS, RUN_SEED, runFlags, spade, spadeAsync } from "./selfplay-scenario.js";
import { fileTempDir } from "../cleanup.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const SHOTS = join(REPO, "test-artifacts", "dashboard");
const root = fileTempDir("spade-dash-e2e-");
const runs = join(root, "runs");
let server: FakeOpenAIServer;
/** The double's options; read at each request, so a test can slow the agent down. */
const serverOptions: SelfPlayServerOptions = { runSeed: RUN_SEED, designs: DESIGNS };
let dashboard: SpadeProcess;
let base: string;
let browser: Browser;
let page: Page;
/** The dashboard's id of run-a (ids follow the order folders were found in). */
let runA: string;
/** Uncaught errors of the page script; none is expected. */
const pageErrors: string[] = [];

/** Starts `spade dashboard ARGS` and resolves with the URL it prints. */
async function startDashboardCli(args: string[]): Promise<{ proc: SpadeProcess; url: string }> {
  const proc = spadeAsync(["dashboard", ...args, "--port", "0", "--poll", "200"]);
  const url = await new Promise<string>((done, fail) => {
    let out = "";
    proc.child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /dashboard: (http:\/\/\S+)\n/.exec(out);
      if (m) done(m[1] as string);
    });
    proc.done.then((r) => fail(new Error(`dashboard exited: ${r.stderr}`)));
  });
  return { proc, url };
}
const shot = (name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const texts = (selector: string) => page.locator(selector).allTextContents();

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const executablePath = execFileSync("bash", [join(REPO, "scripts/setup-browser.sh")], {
    encoding: "utf8",
  }).trim();
  server = await startSelfPlayServer(serverOptions);
  const made = await spade(runFlags(server.baseURL, join(runs, "run-a")));
  expect(made.code, made.stderr).toBe(0);
  // Bad folders beside the good run: a damaged store and a run written by a newer SPADE.
  mkdirSync(join(runs, "corrupt"));
  writeFileSync(join(runs, "corrupt", "run.sqlite"), "not a database ".repeat(100));
  cpSync(join(runs, "run-a"), join(runs, "newer"), { recursive: true });
  const db = new Database(join(runs, "newer", "run.sqlite"));
  db.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
  db.close();
  mkdirSync(join(root, "empty"));
  ({ proc: dashboard, url: base } = await startDashboardCli([runs, join(root, "empty")]));
  browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (err) => pageErrors.push(err.message));
}, 180_000);
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await browser?.close();
  dashboard?.child.kill("SIGINT");
  await dashboard?.done;
  await server?.close();
});

describe("spade dashboard in a browser", () => {
  it("prints a loopback address and lists the runs, bad folders with their coded errors", async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await page.goto(base);
    const good = page.locator('tr.run-row:has(a:text-is("run-a"))');
    await expect(good.locator(".status").textContent()).resolves.toBe("done");
    await expect(good.locator(".steps").textContent()).resolves.toBe("4 / 4");
    runA = (await good.getAttribute("data-run")) as string;
    expect(runA).toBe("r2"); // corrupt, newer, run-a: sorted, then the empty folder
    const errors = await texts("tr.run-row .error");
    expect(errors.map((e) => e.split(" ")[0])).toEqual([
      "E_STORE_CORRUPT",
      "E_CONFIG",
      "E_NOT_FOUND",
    ]);
    expect(errors[1]).toContain("has schema version 2, this SPADE reads 1");
    await shot("runs");
  });

  it("draws the overview's charts with every step's point", async () => {
    await page.goto(`${base}run/${runA}`);
    await page.waitForSelector('figure[data-chart="pool"] canvas');
    const points = await page.$$eval("figure.chart", (figures) =>
      Object.fromEntries(
        figures.map((f) => [f.getAttribute("data-chart"), f.getAttribute("data-points")]),
      ),
    );
    const charts = await page.$eval("#chart-data", (s) => JSON.parse(s.textContent ?? ""));
    const chart = (id: string) => charts.find((c: { id: string }) => c.id === id).runs[0];
    expect(chart("pool")).toEqual({
      name: "run-a",
      steps: [0, 1, 2, 3],
      labels: ["environments"],
      values: [[2, 2, 3, 3]],
    });
    // The success chart holds the store's metrics, step by step (hinted success is null on steps without a finished hinted play).
    const store = RunStore.open(join(runs, "run-a"), "read");
    const metrics = store.steps().map((s) => s.metrics as Record<string, number | null>);
    store.close();
    expect(chart("success").values).toEqual([
      [0.5, 0.5, 0.5, 0.5],
      metrics.map((m) => m.hintedSuccess ?? null),
    ]);
    const hintedPoints = metrics.filter((m) => typeof m.hintedSuccess === "number").length;
    // Points drawn: pool 4, success 4 + the hinted ones, valid-design rate on the 2 design steps; no training, so no loss.
    expect(points).toMatchObject({
      pool: "4",
      success: String(4 + hintedPoints),
      "valid-rate": "2",
      loss: "0",
    });
    await expect(page.locator('figure[data-chart="loss"] .plot').textContent()).resolves.toBe(
      "no data yet",
    );
    await shot("overview");
  });

  it("filters the archive and shows an environment's program highlighted with its validation", async () => {
    await page.goto(`${base}run/${runA}/archive`);
    expect(await texts("tr.env-row td:first-child")).toEqual([
      "colour-vault",
      "number-echo",
      "flicker-panel",
      "secret-sequence",
      "labelled-shelf",
    ]);
    expect((await texts("tr.lost-row td")).map((t) => t.trim())).toEqual([
      "(invalid) slot 0/2",
      "Logical Deduction",
      "-",
      "designer",
      "0",
      "2 attempts; last invalid: E_ORACLE",
    ]);
    await page.selectOption('select[name="validity"]', "invalid");
    await page.click('form.filters button[type="submit"]');
    await page.waitForURL(/validity=invalid/);
    expect(await page.locator("tr.env-row").count()).toBe(0);
    expect(await page.locator("tr.lost-row").count()).toBe(1);
    await page.selectOption('select[name="validity"]', "");
    await page.selectOption('select[name="skill"]', "Pattern Recognition");
    await page.click('form.filters button[type="submit"]');
    await page.waitForURL(/skill=Pattern/);
    expect(await texts("tr.env-row td:first-child")).toEqual(["number-echo", "secret-sequence"]);
    expect(await page.locator("tr.lost-row").count()).toBe(0); // the lost slot is Logical Deduction
    await page.selectOption('select[name="skill"]', "");
    await page.fill('input[name="regretMin"]', "0.5");
    await page.click('form.filters button[type="submit"]');
    await page.waitForURL(/regretMin=0.5/);
    expect(await texts("tr.env-row td:first-child")).toEqual([
      "colour-vault",
      "flicker-panel",
      "secret-sequence",
    ]);
    await shot("archive");
    await page.click('a:text-is("colour-vault")');
    await page.waitForSelector("pre.program");
    expect(await page.locator("pre.program .hljs-keyword").count()).toBeGreaterThan(5);
    expect(await page.locator("pre.program").textContent()).toContain('name: "colour-vault"');
    expect(await page.locator("ul.checks li.failed").count()).toBe(0);
    expect(await page.locator("details.prompt").count()).toBeGreaterThan(0);
    await shot("environment");
  });

  it("lists failed design attempts with their codes, charted per step", async () => {
    await page.goto(`${base}run/${runA}/designs`);
    await page.waitForSelector('figure[data-chart="failure-codes"] canvas');
    expect(await texts("tr.attempt-row .outcome")).toEqual([
      "invalid",
      "valid (trained)",
      "valid (trained)",
      "no-program",
      "invalid (trained)",
      "duplicate",
      "valid (trained)",
      "valid (trained)",
      "valid (trained)",
    ]);
    expect(await texts("tr.attempt-row .failure-code")).toEqual(["E_TRIVIAL", "E_ORACLE"]);
    const chart = await page.$eval(
      "#chart-data",
      (s) => JSON.parse(s.textContent ?? "")[0].runs[0],
    );
    expect(chart).toEqual({
      name: "run-a",
      steps: [0, 2],
      labels: ["E_ORACLE", "E_TRIVIAL", "duplicate", "no-program"],
      values: [
        [1, 0],
        [1, 0],
        [0, 1],
        [1, 0],
      ],
    });
    await shot("designs");
    await page.selectOption('select[name="code"]', "E_ORACLE");
    await page.click('form.filters button[type="submit"]');
    await page.waitForURL(/code=E_ORACLE/);
    expect(await texts("tr.attempt-row td:first-child")).toEqual(["0/2/1"]);
  });

  it("shows an environment's unhinted and hinted plays of one seed side by side", async () => {
    await page.goto(`${base}run/${runA}/episodes?env=d0-0&step=0`);
    expect(await page.locator("tr.episode-row").count()).toBe(4);
    await page.locator('tr.episode-row a:text-is("view pair")').first().click();
    await page.waitForSelector(".pair");
    const unhinted = await page.locator("section.transcript.unhinted").textContent();
    const hinted = await page.locator("section.transcript.hinted").textContent();
    expect(unhinted).toContain("unhinted: return 0, no success");
    expect(unhinted).not.toContain("HINT:");
    expect(hinted).toContain("hinted: return 1, success");
    expect(hinted).toMatch(/HINT: The answer is (amber|cobalt|violet|scarlet)\./);
    await shot("episode");
  });

  it("plays an archived environment to success with the hint and oracle buttons", async () => {
    await page.goto(`${base}play?run=${runA}&env=d0-0`);
    await page.fill("#play-seed", "2");
    await page.click("#play-reset");
    await page.waitForSelector(".play-env");
    await page.click("#play-hint");
    await page.waitForSelector('.play-env:has-text("HINT: The answer is violet.")');
    await page.click("#play-oracle");
    await page.waitForSelector('#play-status[data-over="true"]');
    expect(await page.locator("#play-status").textContent()).toBe(
      "colour-vault seed 2: turn 1/2, return 1 - SUCCESS",
    );
    await shot("play");
  });

  it("plays a library environment to success by pressing the oracle until the episode ends", async () => {
    await page.goto(`${base}play?lib=vault-cracker`);
    await page.click("#play-reset");
    await page.waitForSelector(".play-env");
    for (
      let i = 0;
      i < 12 && (await page.locator("#play-status").getAttribute("data-over")) !== "true";
      i++
    ) {
      const before = await page.locator(".play-env").count();
      await page.click("#play-oracle");
      await page.locator(".play-env").nth(before).waitFor();
    }
    expect(await page.locator("#play-status").getAttribute("data-success")).toBe("true");
  });

  it("closes the page's game when it starts another and when the page goes", async () => {
    const started: string[] = [];
    const record = async (r: { url(): string; json(): Promise<unknown> }) => {
      if (r.url().endsWith("/api/play/start"))
        started.push(((await r.json()) as { session: string }).session);
    };
    page.on("response", record);
    const hint = async (session: string | undefined) => {
      const response = await fetch(new URL("/api/play/hint", base), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ session }),
      });
      const body = (await response.json()) as { error?: { message: string } };
      return [response.status, body.error?.message.replace(session ?? "", "ID") ?? "open"];
    };
    try {
      await page.goto(`${base}play?lib=vault-cracker`);
      for (const n of [1, 2]) {
        await page.click("#play-reset");
        await expect.poll(() => started.length).toBe(n);
      }
      expect([await hint(started[0]), await hint(started[1])]).toEqual([
        [
          404,
          "play session ID was closed: its page started another game in its place (press Start to begin a new game)",
        ],
        [200, "open"],
      ]);
      await page.goto(base);
      await expect
        .poll(() => hint(started[1]))
        .toEqual([
          404,
          "play session ID was closed: its page closed it (press Start to begin a new game)",
        ]);
    } finally {
      page.off("response", record);
    }
  });

  it("follows a second run live as it runs, without reloading the page, and overlays the two", async () => {
    await page.goto(base);
    // Functions run in the page are given as text: the test's TypeScript has no DOM types.
    await page.evaluate("window.marker = 42");
    await page.waitForSelector("body[data-live-connected]");
    serverOptions.agentDelayMs = 150; // slow enough to be seen running
    const second = spadeAsync(runFlags(server.baseURL, join(runs, "run-b")));
    const row = page.locator('tr.run-row:has(a:text-is("run-b"))');
    try {
      await row.locator('.status:text-is("running")').waitFor({ timeout: 20_000 });
      expect(await row.locator(".steps").textContent()).toMatch(/^[0-3] \/ 4$/);
      await shot("runs-running");
    } finally {
      const ended = await second.done;
      serverOptions.agentDelayMs = 0;
      expect(ended.code, ended.stderr).toBe(0);
    }
    await row.locator('.steps:text-is("4 / 4")').waitFor({ timeout: 20_000 });
    await row.locator('.status:text-is("done")').waitFor({ timeout: 20_000 });
    expect(await page.evaluate("window.marker")).toBe(42);
    expect(Number(await page.getAttribute("body", "data-updates"))).toBeGreaterThan(0);
    await shot("runs-live");
    await page.check('tr.run-row:has(a:text-is("run-a")) input[type="checkbox"]');
    await page.check('tr.run-row:has(a:text-is("run-b")) input[type="checkbox"]');
    await page.click('button:text-is("Overlay ticked runs")');
    await page.waitForSelector('figure[data-chart="pool"] canvas');
    expect(await page.getAttribute('figure[data-chart="pool"]', "data-series")).toBe("2");
    expect(await page.getAttribute('figure[data-chart="pool"]', "data-points")).toBe("8");
    await shot("overlay");
  });

  it("on a non-loopback --host prints a token and serves only requests carrying it", async () => {
    const { proc, url } = await startDashboardCli([runs, "--host", "0.0.0.0"]);
    try {
      const m = /^http:\/\/0\.0\.0\.0:(\d+)\/\?token=([A-Za-z0-9_-]{24})$/.exec(url);
      expect(m, url).not.toBeNull();
      const [, port, token] = m as RegExpExecArray;
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/?token=wrong`)).status).toBe(401);
      const ok = await fetch(`http://127.0.0.1:${port}/?token=${token}`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain(">run-a</a>");
    } finally {
      proc.child.kill("SIGINT");
      expect((await proc.done).code).toBe(0);
    }
  });

  it("draws the overview of a 400-step, 10,000-episode run in under 2 s", async () => {
    const big = join(root, "big");
    writeBigRun(big, { steps: 400, environments: 2400, episodes: 10_000 });
    const { proc, url } = await startDashboardCli([big]);
    try {
      const started = Date.now();
      await page.goto(`${url}run/r0`);
      await page.waitForFunction(
        '[...document.querySelectorAll("figure.chart")].every((f) => f.hasAttribute("data-points"))',
      );
      const ms = Date.now() - started;
      expect(await page.getAttribute('figure[data-chart="regret"]', "data-points")).toBe("400");
      expect(await page.locator("figure.chart canvas").count()).toBe(9); // every chart but episodes/s (no metrics.jsonl)
      expect(ms).toBeLessThan(2000);
      await shot("overview-400-steps");
    } finally {
      proc.child.kill("SIGINT");
      await proc.done;
    }
  });
});
