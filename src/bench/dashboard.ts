/**
 * @module bench/dashboard
 * Benchmark (not a test) of the dashboard's overview page: how long headless Chromium takes to
 * load and draw every chart of a run with 400 steps and 10,000 episodes, against an empty run
 * (no steps). Needs playwright-core (a dev dependency) and a Chromium (scripts/setup-browser.sh).
 * Final line: `render_ratio=<big run ms / empty run ms>` (medians over the rounds).
 *
 * Usage: npm run build && npm run bench:dashboard [-- STEPS EPISODES ROUNDS] (defaults 400 10000 5)
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDashboard } from "../dashboard/index.js";
import { testDashboardOptions } from "../dashboard/testing/options.js";
import { RunStore } from "../store/index.js";
import { writeBigRun } from "./big-run.js";

const [steps = 400, episodes = 10_000, rounds = 5] = process.argv.slice(2).map(Number);
const root = mkdtempSync(join(tmpdir(), "spade-bench-dashboard-"));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  const empty = join(root, "empty");
  RunStore.open(empty, "create").close();
  writeBigRun(join(root, "big"), {
    steps,
    environments: Math.max(1, Math.floor(steps * 6)),
    episodes,
  });
  const executablePath = execFileSync(
    "bash",
    [fileURLToPath(new URL("../../scripts/setup-browser.sh", import.meta.url))],
    { encoding: "utf8" },
  ).trim();
  // playwright-core is a dev dependency: loaded only here, never by the command.
  const { chromium } = await import("playwright-core");
  const dashboard = await startDashboard(
    testDashboardOptions([empty, join(root, "big")], { pollMs: 60_000 }),
  );
  const browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const time = async (id: string) => {
      const started = performance.now();
      await page.goto(`${dashboard.url}run/${id}`);
      await page.waitForFunction(
        '[...document.querySelectorAll("figure.chart")].every((f) => f.hasAttribute("data-points"))',
      );
      return performance.now() - started;
    };
    await time("r0"); // warm-up: browser and server caches
    await time("r1");
    const emptyMs: number[] = [];
    const bigMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      emptyMs.push(await time("r0"));
      bigMs.push(await time("r1"));
    }
    process.stdout.write(
      `empty run: median ${median(emptyMs).toFixed(1)} ms over ${rounds} loads\n`,
    );
    process.stdout.write(
      `${steps} steps, ${episodes} episodes: median ${median(bigMs).toFixed(1)} ms over ${rounds} loads\n`,
    );
    process.stdout.write(`render_ratio=${(median(bigMs) / median(emptyMs)).toFixed(2)}\n`);
  } finally {
    await browser.close();
    await dashboard.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench:dashboard failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});
