/**
 * @module bench/slots
 * Benchmark (not a test) of orchestration overhead: 256 concurrent episodes of a library
 * environment, played by the chat agent against a fake OpenAI-compatible server (a test double
 * defined here) that answers each request after a fixed latency with a fixed number of
 * concurrent slots, queueing beyond. Final line: `slot_utilization=<busy slot-time / (slots x
 * wall time from the first request to the last answer)>`; the goal is at least 0.95.
 *
 * Usage: npm run build && npm run bench:slots [-- SLOTS LATENCY_MS EPISODES OPEN_CONCURRENCY]
 * (defaults 32 250 256 DEFAULT_OPEN_CONCURRENCY)
 */
import { createServer, type ServerResponse } from "node:http";
import { listenLoopback } from "../net/index.js";
import { resolveProgram } from "../envs/index.js";
import { chatAgent, Limiter, openAIChatBackend } from "../policy/index.js";
import { DEFAULT_OPEN_CONCURRENCY, runGroup } from "../rollout/index.js";
import { loadProgram } from "../sandbox/index.js";

const ENV_NAME = "vault-cracker";
/** Scripted guesses, one per turn (4 distinct digits each, so every step is a real step). */
const GUESSES = ["0123", "4567", "8901", "2345", "6789", "1357", "2468", "3579", "4680", "5791"];

/** Phases of a run, for telling where slots sat idle. */
type Phase = "ramp" | "steady" | "tail";

/** Slot accounting of the fake server. */
interface SlotStats {
  busyMs: number;
  firstStartMs: number;
  lastEndMs: number;
  requests: number;
  /**
   * Idle slot-time by phase: `ramp` until every episode has sent its first request, `tail`
   * from the first answer to a last-turn request on, `steady` between.
   */
  idleMsByPhase: Record<Phase, number>;
  /** When each phase began (ms, performance clock). */
  phaseStartMs: Record<Phase, number>;
}

/** TEST DOUBLE: a chat-completions server with `slots` workers of fixed `latencyMs` each. */
async function startSlotServer(
  slots: number,
  latencyMs: number,
  episodes: number,
  lastTurn: number,
) {
  const stats: SlotStats = {
    busyMs: 0,
    firstStartMs: Infinity,
    lastEndMs: 0,
    requests: 0,
    idleMsByPhase: { ramp: 0, steady: 0, tail: 0 },
    phaseStartMs: { ramp: 0, steady: 0, tail: 0 },
  };
  const queue: Array<() => void> = [];
  let free = slots;
  let phase: Phase = "ramp";
  let firstTurns = 0;
  let lastChangeMs = 0;
  /** Books the idle slot-time since the last change of `free`. */
  const account = () => {
    const now = performance.now();
    if (stats.firstStartMs !== Infinity) stats.idleMsByPhase[phase] += free * (now - lastChangeMs);
    lastChangeMs = now;
  };
  const startNext = () => {
    while (free > 0 && queue.length > 0) {
      account();
      free--;
      (queue.shift() as () => void)();
    }
  };
  const answer = (res: ServerResponse, turn: number) => {
    const start = performance.now();
    stats.firstStartMs = Math.min(stats.firstStartMs, start);
    setTimeout(() => {
      const end = performance.now();
      stats.busyMs += end - start;
      stats.lastEndMs = Math.max(stats.lastEndMs, end);
      stats.requests++;
      account();
      free++;
      if (turn === lastTurn && phase !== "tail") {
        if (phase === "ramp") stats.phaseStartMs.steady = end; // no steady phase at all
        phase = "tail";
        stats.phaseStartMs.tail = end;
      }
      startNext();
      const content = `My guess: \\boxed{${GUESSES[turn % GUESSES.length]}}`;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          created: 0,
          model: "bench",
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        }),
      );
    }, latencyMs);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        messages: Array<{ role: string }>;
      };
      const turn = body.messages.filter((m) => m.role === "assistant").length;
      if (turn === 0 && ++firstTurns === episodes && phase === "ramp") {
        phase = "steady";
        stats.phaseStartMs.steady = performance.now();
      }
      queue.push(() => answer(res, turn));
      startNext();
    });
  });
  server.keepAliveTimeout = 60_000;
  const { port, close } = await listenLoopback(server);
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    stats,
    close,
  };
}

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer (got ${value})`);
  return n;
}

async function main(): Promise<void> {
  const [slotsArg, latencyArg, episodesArg, openArg] = process.argv.slice(2);
  const slots = positiveInt(slotsArg, 32, "SLOTS");
  const latencyMs = positiveInt(latencyArg, 250, "LATENCY_MS");
  const episodes = positiveInt(episodesArg, 256, "EPISODES");
  const openConcurrency = positiveInt(openArg, DEFAULT_OPEN_CONCURRENCY, "OPEN_CONCURRENCY");
  const source = resolveProgram(ENV_NAME).source;
  const probe = await loadProgram(source);
  const maxTurns = probe.meta.maxTurns;
  await probe.close();
  const server = await startSlotServer(slots, latencyMs, episodes, maxTurns - 1);
  try {
    const backend = openAIChatBackend({
      baseURL: server.baseURL,
      model: "bench",
      maxConcurrentRequests: episodes,
    });
    const wallStart = performance.now();
    const result = await runGroup(
      () => loadProgram(source),
      () => chatAgent({ backend }),
      {
        seeds: Array.from({ length: episodes }, (_, i) => i),
        concurrency: episodes,
        openLimiter: new Limiter(openConcurrency),
      },
    );
    const wallMs = performance.now() - wallStart;
    const { busyMs, firstStartMs, lastEndMs, requests } = server.stats;
    const windowMs = lastEndMs - firstStartMs;
    const utilization = busyMs / (slots * windowMs);
    const turns = result.episodes.reduce((sum, e) => sum + e.turns, 0);
    process.stdout.write(
      `${ENV_NAME}: ${episodes} concurrent episodes, ${turns} turns, ${result.unhinted.failed} failed; ` +
        `server ${slots} slots x ${latencyMs} ms, ${requests} requests; ${openConcurrency} opens at once; ` +
        `serving window ${(windowMs / 1000).toFixed(2)} s (ideal ${((requests * latencyMs) / slots / 1000).toFixed(2)} s), whole run ${(wallMs / 1000).toFixed(2)} s\n`,
    );
    const idle = server.stats.idleMsByPhase;
    const share = (ms: number) => (ms / (slots * windowMs)).toFixed(4);
    const at = server.stats.phaseStartMs;
    const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    process.stdout.write(
      `phases: ramp ${secs(at.steady - firstStartMs)}, steady ${secs(at.tail - at.steady)}, tail ${secs(lastEndMs - at.tail)}; ` +
        `idle share of slot-time: ramp ${share(idle.ramp)}, steady ${share(idle.steady)}, tail ${share(idle.tail)}\n`,
    );
    if (result.unhinted.failed > 0) {
      const first = result.episodes.find((e) => e.failure !== null);
      process.stdout.write(`first failure: ${first?.failure}\n`);
    }
    process.stdout.write(`slot_utilization=${utilization.toFixed(4)}\n`);
  } finally {
    await server.close();
  }
}

await main();
