/**
 * @module bench/loop
 * Benchmark (not a test) of the self-play loop's own cost and of pipelined steps: the real loop
 * (`runSelfPlay`: store, designer, validation, sandbox, scoring, commits) over a fake sampler and
 * a fake trainer (test doubles defined here, injected at the policy / trainer seam) that answer
 * after fixed latencies, at the reference's scale per step by default (24 designs, 192 episodes of
 * up to 25 turns). Runs the same steps synchronously (`maxOffPolicy` 0) and pipelined (1) and
 * prints per-phase times, then `pipeline_speedup=<synchronous step time / pipelined step time>`
 * (goal >= 1.6 when sampling and training take equal time) and `orchestration_overhead=<share of
 * the pipelined step's time when neither fake is busy>` (goal < 3%). A step's time is the steady
 * state's: (last commit - first commit) / (steps - 1).
 *
 * Usage: npm run build && npm run bench:loop [-- --steps 3 --designs 24 --episodes 192
 *   --turns 25 --design-ms 200 --turn-ms 16 --train-ms auto --validation reference
 *   --sandbox isolated-vm]; `--train-ms auto` sets the training latency to a step's measured
 *   designing and playing time (so both sides take equal time), a number sets it in ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildConfig } from "../config/index.js";
import { makeAction } from "../env/index.js";
import { runSelfPlay } from "../loop/index.js";
import type { PhaseSpan } from "../loop/pipeline.js";
import type { LoopPolicy } from "../loop/policy.js";
import type { Trainer } from "../trainer/index.js";

const { values: flags } = parseArgs({
  options: {
    steps: { type: "string", default: "3" },
    designs: { type: "string", default: "24" },
    episodes: { type: "string", default: "192" },
    turns: { type: "string", default: "25" },
    "design-ms": { type: "string", default: "200" },
    "turn-ms": { type: "string", default: "16" },
    "train-ms": { type: "string", default: "auto" },
    validation: { type: "string", default: "reference" },
    sandbox: { type: "string", default: "isolated-vm" },
  },
});
const num = (name: keyof typeof flags): number => {
  const value = Number(flags[name]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number >= 0`);
  return value;
};
const STEPS = Math.max(2, num("steps"));
const DESIGNS = num("designs");
const EPISODES = num("episodes");
const TURNS = num("turns");
const DESIGN_MS = num("design-ms");
const TURN_MS = num("turn-ms");
/** `auto`: calibrated to the measured sampling time of a step (see `calibrate`). */
let trainMs = flags["train-ms"] === "auto" ? 0 : num("train-ms");
const SKILL = "Logical Deduction";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const now = () => performance.now();

/** Busy intervals of one fake (requests may overlap: a batching server). */
class Busy {
  readonly spans: Array<[number, number]> = [];
  async during<T>(run: () => Promise<T>): Promise<T> {
    const start = now();
    try {
      return await run();
    } finally {
      this.spans.push([start, now()]);
    }
  }
}

/** Length of the union of `spans` clipped to [from, to]. */
function covered(
  spans: ReadonlyArray<readonly [number, number]>,
  from: number,
  to: number,
): number {
  const sorted = spans
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of sorted) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/**
 * TEST DOUBLE's program: a valid environment, unique per designer request (its identifiers carry
 * the request's seed, so no design is a near-duplicate of another): a hidden digit 1-9, found
 * by the oracle, never by the fake agent (which always answers 0), so every play lasts `TURNS`.
 */
function program(seed: number): string {
  const id = `v${seed}`;
  return `Here it is.\n\n\`\`\`javascript
class Environment {
  static meta = { name: "digit-${id}", skill: "${SKILL}", description: "Guess the hidden digit ${id} within ${TURNS} turns.", maxTurns: ${TURNS}, tools: [] };
  reset(seed) { this.${id}_secret = 1 + (seed % 9); this.${id}_turn = 0; return { observation: "Guess the digit 1-9 in \\\\boxed{}.", info: {} }; }
  step(action) {
    this.${id}_turn++;
    const ${id}_ok = action.answer === String(this.${id}_secret);
    return { observation: ${id}_ok ? "Right." : "Wrong.", reward: ${id}_ok ? 1 : 0, terminated: ${id}_ok, truncated: this.${id}_turn >= ${TURNS}, info: {} };
  }
  hint() { return "The digit is " + this.${id}_secret + "."; }
  solve() { return { text: "\\\\boxed{" + this.${id}_secret + "}" }; }
}
\`\`\`\n`;
}

/** TEST DOUBLE: the sampler, answering every request after a fixed latency. */
function fakePolicy(busy: Busy): LoopPolicy {
  return {
    complete: (_messages, s) =>
      busy.during(async () => {
        await sleep(DESIGN_MS);
        return { text: program(s.seed), tokens: null };
      }),
    agent: () => () =>
      busy.during(async () => {
        await sleep(TURN_MS);
        return makeAction("I guess \\boxed{0}");
      }),
    useWeights: () => {},
  };
}

/** TEST DOUBLE: the trainer, one optimiser step after a fixed latency. */
function fakeTrainer(busy: Busy): Trainer {
  return {
    train: (step, samples) =>
      busy.during(async () => {
        await sleep(trainMs);
        return {
          metrics: { datums: samples.length },
          checkpoint: { step, samplerPath: `bench://sampler/${step}`, statePath: null },
        };
      }),
  };
}

interface Measured {
  stepMs: number;
  overhead: number;
  phases: Record<PhaseSpan["phase"], number>;
}

async function measure(maxOffPolicy: number, steps = STEPS): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "spade-bench-loop-"));
  const sampling = new Busy();
  const training = new Busy();
  const spans: PhaseSpan[] = [];
  const config = buildConfig([
    {
      seed: 1,
      steps,
      designsPerStep: DESIGNS,
      skills: [SKILL],
      regenerateEvery: 1,
      rewardDelay: 1,
      agentBatch: EPISODES,
      hintedPlays: 0,
      maxAttempts: 1,
      maxTurnsCap: TURNS,
      concurrency: EPISODES,
      corpus: "none",
      memory: "off",
      validation: flags.validation,
      sandbox: flags.sandbox,
      batchFit: "off",
      maxOffPolicy,
    },
  ]);
  try {
    await runSelfPlay(
      join(dir, "run"),
      config,
      {
        policy: fakePolicy(sampling),
        trainer: fakeTrainer(training),
        progress: () => {},
        now,
        onPhase: (span) => spans.push(span),
      },
      { resume: false },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const commits = spans.filter((s) => s.phase === "commit").map((s) => s.end);
  const from = commits[0] as number;
  const to = commits.at(-1) as number;
  const idle = to - from - covered([...sampling.spans, ...training.spans], from, to);
  const phases = {} as Record<PhaseSpan["phase"], number>;
  for (const phase of ["design", "validate", "play", "score", "train", "commit"] as const) {
    let total = 0;
    for (let step = 0; step < steps; step++) {
      const of = spans.filter((s) => s.phase === phase && s.step === step);
      total += covered(
        of.map((s) => [s.start, s.end] as const),
        -Infinity,
        Infinity,
      );
    }
    phases[phase] = total / steps;
  }
  return { stepMs: (to - from) / (steps - 1), overhead: idle / (to - from), phases };
}

const fmt = (ms: number) => `${ms.toFixed(1)}ms`;
function report(name: string, m: Measured): void {
  const phases = Object.entries(m.phases)
    .map(([p, ms]) => `${p}=${fmt(ms)}`)
    .join(" ");
  console.log(`${name}: step=${fmt(m.stepMs)} ${phases} idle=${(m.overhead * 100).toFixed(2)}%`);
}

/**
 * The training latency for `--train-ms auto`: a step's designing and playing as measured here
 * (fake latencies plus the sandbox, validation and store work they wait on), from two
 * synchronous steps that train instantly, so that sampling and training take equal time.
 */
async function calibrate(): Promise<number> {
  const m = await measure(0, 2);
  return Math.round(m.phases.design + m.phases.play);
}

if (flags["train-ms"] === "auto") trainMs = await calibrate();
console.log(
  `loop bench: ${STEPS} steps of ${DESIGNS} designs and ${EPISODES} episodes of ${TURNS} turns; design ${DESIGN_MS} ms, turn ${TURN_MS} ms, train ${trainMs} ms${flags["train-ms"] === "auto" ? " (auto: a step's measured sampling time)" : ""}; validation ${flags.validation}, ${flags.sandbox}`,
);
const sync = await measure(0);
report("synchronous (K=0)", sync);
const pipelined = await measure(1);
report("pipelined (K=1)", pipelined);
console.log(`orchestration_overhead_sync=${(sync.overhead * 100).toFixed(2)}%`);
console.log(`pipeline_speedup=${(sync.stepMs / pipelined.stepMs).toFixed(3)}`);
console.log(`orchestration_overhead=${(pipelined.overhead * 100).toFixed(2)}%`);
