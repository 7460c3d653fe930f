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
 * state's: from the start of step 1 to the start of the last step, over steps - 2 (neither the
 * first step's warm-up nor the last one's drain counted); a phase's time is its mean over the steps
 * after the first (the first also warms the sandbox and the store up).
 *
 * Usage: npm run build && npm run bench:loop [-- --steps 4 --designs 24 --episodes 192
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
import { mulberry32 } from "../random/index.js";
import { RunStore } from "../store/index.js";
import type { Trainer } from "../trainer/index.js";

const { values: flags } = parseArgs({
  options: {
    steps: { type: "string", default: "4" },
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
const STEPS = Math.max(3, num("steps"));
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

/** Statement shapes for `program`'s filler: the dedupe check compares token shapes, not names. */
const SHAPES = ["+=", "-=", "*=", "/=", "%=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "**="].map(
  (op) => `x ${op} 3;`,
);

/**
 * TEST DOUBLE's program: a valid environment, unique per designer request (a filler method whose
 * statement shapes are drawn from the request's seed, so no design is a near-duplicate of another
 * by the dedupe check): a hidden digit 1-9, found by the oracle, never by the fake agent (which
 * always answers 0), so every play lasts `TURNS`.
 */
function program(seed: number): string {
  const id = `v${seed}`;
  const draw = mulberry32(seed);
  const filler = Array.from(
    { length: 120 },
    () => SHAPES[Math.floor(draw() * SHAPES.length)] as string,
  ).join(" ");
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
  filler(x) { ${filler} return x; }
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
    // The scale is the reference's only if every step's designs are new and valid.
    const store = RunStore.open(join(dir, "run"), "read");
    const valid = store.designs().filter((d) => d.outcome === "valid").length;
    store.close();
    if (valid !== steps * DESIGNS)
      throw new Error(`${valid} of ${steps * DESIGNS} designs were valid: the fake designer broke`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Every step designs (R = 1): a step begins with its design stage.
  const begins = spans.filter((s) => s.phase === "design").map((s) => s.start);
  const from = begins[1] as number;
  const to = begins.at(-1) as number;
  const idle = to - from - covered([...sampling.spans, ...training.spans], from, to);
  const phases = {} as Record<PhaseSpan["phase"], number>;
  for (const phase of ["design", "validate", "play", "score", "train", "commit"] as const) {
    let total = 0;
    // Steps after the first (the first one also warms the sandbox and the store up).
    for (let step = 1; step < steps; step++) {
      const of = spans.filter((s) => s.phase === phase && s.step === step);
      total += covered(
        of.map((s) => [s.start, s.end] as const),
        -Infinity,
        Infinity,
      );
    }
    phases[phase] = total / (steps - 1);
  }
  return { stepMs: (to - from) / (steps - 2), overhead: idle / (to - from), phases };
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
 * (fake latencies plus the sandbox, validation and store work they wait on), from the second of
 * two synchronous steps that train instantly, so that sampling and training take equal time.
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
