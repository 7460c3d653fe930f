/**
 * @module bench/serve
 * Benchmark (not a test): `spade serve` under load. N concurrent WebSocket sessions (OpenEnv's
 * protocol, `ws` clients in this process) step a light game (vault-cracker, fixed guesses,
 * reset when an episode ends) for S seconds; then, in the same run, N concurrent loops step the
 * same environment directly in the sandbox (no server). Prints steps per second, p50/p99 step
 * latency of both, and `serve_vs_inprocess_ratio=<served / direct steps per second>`.
 *
 * Usage: npm run bench:serve [-- SESSIONS SECONDS]   (default 256 sessions, 10 seconds)
 */
import WebSocket from "ws";
import { makeAction } from "../env/index.js";
import { resolveProgram } from "../envs/index.js";
import { loadProgram } from "../sandbox/index.js";
import { catalogSources, loadCatalog, startServer } from "../serve/index.js";

const ENV_NAME = "vault-cracker";
const GUESSES = ["\\boxed{0123}", "\\boxed{4567}", "\\boxed{8901}", "\\boxed{2345}"];

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

interface Measured {
  steps: number;
  /** Steps that failed (e.g. a sandbox deadline missed under load); the episode is reset. */
  errors: number;
  stepsPerSecond: number;
  latenciesMs: number[];
}

/** A connected client session with its first episode started. */
async function openClient(url: string, index: number) {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const ask = (msg: unknown) =>
    new Promise<{ type: string; data: { done?: boolean; message?: string } }>((resolve) => {
      ws.once("message", (data) => resolve(JSON.parse(data.toString())));
      ws.send(JSON.stringify(msg));
    });
  const first = await ask({ type: "reset", data: { seed: index * 1000 } });
  if (first.type === "error") throw new Error(`session ${index}: ${first.data.message}`);
  return { ws, ask, index };
}

/** Steps one session until the deadline (reset when an episode ends or a step fails). */
async function clientLoop(
  client: Awaited<ReturnType<typeof openClient>>,
  deadline: number,
  latencies: number[],
): Promise<[number, number]> {
  let steps = 0;
  let errors = 0;
  let seed = client.index * 1000;
  for (let turn = 0; performance.now() < deadline; turn++) {
    const start = performance.now();
    const reply = await client.ask({
      type: "step",
      data: { text: GUESSES[turn % GUESSES.length] },
    });
    latencies.push(performance.now() - start);
    if (reply.type === "error") errors++;
    else steps++;
    if (reply.type === "error" || reply.data.done)
      await client.ask({ type: "reset", data: { seed: ++seed } });
  }
  client.ws.close();
  return [steps, errors];
}

async function served(sessions: number, seconds: number): Promise<Measured> {
  const entries = await loadCatalog(catalogSources([ENV_NAME]));
  const server = await startServer({
    entries,
    port: 0,
    maxSessions: sessions,
    sessionTimeoutS: null,
  });
  const latencies: number[] = [];
  try {
    const url = `${server.url.replace("http", "ws")}/${ENV_NAME}/ws`;
    // Sessions open (a sandbox each) and start their first episode before the clock starts.
    const clients = [];
    for (let i = 0; i < sessions; i++) clients.push(await openClient(url, i));
    const start = performance.now();
    const deadline = start + seconds * 1000;
    const counts = await Promise.all(clients.map((c) => clientLoop(c, deadline, latencies)));
    return measured(counts, start, latencies);
  } finally {
    await server.close();
  }
}

/** The totals of per-session `[steps, errors]` counts over the time since `start`. */
function measured(
  counts: readonly (readonly [number, number])[],
  start: number,
  latencies: number[],
): Measured {
  const steps = counts.reduce((a, [n]) => a + n, 0);
  const errors = counts.reduce((a, [, e]) => a + e, 0);
  return {
    steps,
    errors,
    stepsPerSecond: steps / ((performance.now() - start) / 1000),
    latenciesMs: latencies,
  };
}
async function direct(sessions: number, seconds: number): Promise<Measured> {
  const source = resolveProgram(ENV_NAME).source;
  const envs = await Promise.all(Array.from({ length: sessions }, () => loadProgram(source)));
  const latencies: number[] = [];
  try {
    await Promise.all(envs.map((env, i) => env.reset(i * 1000)));
    const start = performance.now();
    const deadline = start + seconds * 1000;
    const counts = await Promise.all(
      envs.map(async (env, i) => {
        let steps = 0;
        let errors = 0;
        let seed = i * 1000;
        for (let turn = 0, inEpisode = 0; performance.now() < deadline; turn++) {
          const t0 = performance.now();
          const r = await env.step(makeAction(GUESSES[turn % GUESSES.length]!)).catch(() => null);
          latencies.push(performance.now() - t0);
          if (r) steps++;
          else errors++;
          inEpisode++;
          if (!r || r.terminated || r.truncated || inEpisode >= env.meta.maxTurns) {
            await env.reset(++seed);
            inEpisode = 0;
          }
        }
        return [steps, errors] as const;
      }),
    );
    return measured(counts, start, latencies);
  } finally {
    await Promise.all(envs.map((e) => e.close()));
  }
}

function line(label: string, m: Measured): string {
  const sorted = [...m.latenciesMs].sort((a, b) => a - b);
  return `${label}: ${m.steps} steps (${m.errors} failed), ${m.stepsPerSecond.toFixed(0)} steps/s, p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const sessions = Number(process.argv[2] ?? 256);
  const seconds = Number(process.argv[3] ?? 10);
  if (!Number.isInteger(sessions) || sessions < 1 || !(seconds > 0))
    throw new Error("usage: bench:serve [SESSIONS SECONDS]");
  process.stdout.write(`${ENV_NAME}, ${sessions} concurrent sessions, ${seconds} s each way\n`);
  const s = await served(sessions, seconds);
  process.stdout.write(`${line("served (WS /ws, clients in this process)", s)}\n`);
  const d = await direct(sessions, seconds);
  process.stdout.write(`${line("direct (ProgramEnv, same sandbox)", d)}\n`);
  process.stdout.write(
    `serve_vs_inprocess_ratio=${(s.stepsPerSecond / d.stepsPerSecond).toFixed(3)}\n`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench:serve failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  },
);
