/**
 * @module bench/loop-growth
 * Benchmark (not a test) of how a step's store work grows over a long run: 400 steps at the
 * reference's scale (24 designs every R = 4 steps, 8 unhinted plays per environment, 16 hinted on
 * its creation step) against a real RunStore, through the loop's own read paths (the design
 * stage's memory and dedupe reads, the step's pool, scoring's reads and `scoreStep`, the trainer's
 * rows, the commit). Only the sampling is faked: designs are library programs under new ids and
 * episodes are drawn from a seeded generator, with transcripts and traces of a realistic shape.
 * With `--dedupe`, each new design is also compared with the dedupe archive (designer/dedupe.ts;
 * the design stage's own work, not a store read), timed apart and printed as
 * `dedupe_growth_ratio=`. Then a design is a seeded variant of its library program (a statement
 * inserted after about half of its statements, half its description's words swapped), not a copy:
 * a run's archive holds no near-duplicates of one another (the loop refuses them), and 100 copies
 * of each library program would make every archived copy a match to score. The number of designs
 * the comparison flagged is printed (`dedupe_flagged=`; a realistic archive: few), and the time a
 * resumed run takes to rebuild the archive from the store.
 * A progress line goes to stderr every 50 steps.
 * Run with `--expose-gc` (the npm script does) for the heap kept at the reported steps.
 * Last lines: `loop_growth_wall_ratio=` (wall time per step around the last step over around step
 * 10: each the median of five regeneration cycles' means, steps 0-19 and 380-399) and
 * `loop_growth_ratio=`, the same ratio of the CPU time the steps took: on a shared machine other
 * processes stretch wall time by a factor that changes within a run, CPU time less.
 *
 * Usage: npm run build && npm run bench:growth [-- STEPS] [--dedupe] (default 400 steps)
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildConfig } from "../config/index.js";
import { findDuplicate, fingerprint } from "../designer/index.js";
import type { Json } from "../env/index.js";
import { dedupeArchive, memoryRecords } from "../loop/design-memory.js";
import { stepPool } from "../loop/env-pool.js";
import { designedEnvId, playSeeds, seedOf } from "../loop/keys.js";
import { loadLibrary, type LibraryProgram } from "../loop/library.js";
import { playsPerEnv } from "../loop/play.js";
import { slotSkill } from "../loop/schedule.js";
import { scoreStep } from "../loop/score.js";
import { readScoreInput, scoreWindowStart } from "../loop/score-input.js";
import { selectMemory } from "../memory/index.js";
import { mulberry32 } from "../random/index.js";
import { EMPTY_STATS, RunStore, type EnvironmentRow } from "../store/index.js";

const args = process.argv.slice(2);
const dedupe = args.includes("--dedupe");
const [steps = 400] = args.filter((a) => a !== "--dedupe").map(Number);
const config = buildConfig([{ steps, corpus: "none", seed: 7 }]);
const PHASES = ["design", "pool", "play", "score", "train", "commit"] as const;
/** Regeneration cycles whose median a reported step's figures are (step 10: steps 0-19). */
const CYCLES = 5;
type Phase = (typeof PHASES)[number];

/** A fake agent episode's transcript: `turns` steps of short text (at most 6 kept, as a short game). */
function transcript(turns: number, success: boolean, hinted: boolean): Json {
  const kept = Math.min(turns, 6);
  return {
    firstObservation: `You face a puzzle. Find the hidden value.${hinted ? "\n\nHINT: work from the ends." : ""}`,
    outcome: "terminated",
    maskedTurns: [],
    steps: Array.from({ length: kept }, (_, t) => ({
      action: {
        text: `I think the answer is \\boxed{${t}} because ${"x".repeat(120)}`,
        answer: String(t),
        toolCalls: [],
      },
      observation: `Turn ${t}: not quite. ${"o".repeat(100)}`,
      reward: t === kept - 1 && success ? 1 : 0,
      terminated: t === kept - 1,
      truncated: false,
      toolResults: [],
    })),
  };
}

/** A fake per-turn trace (token ids and logprobs), as a sampling backend records it. */
function trace(turns: number, random: () => number): Json {
  return {
    turns: Array.from({ length: Math.min(turns, 6) }, () => ({
      tokens: Array.from({ length: 32 }, () => Math.floor(random() * 150_000)),
      logprobs: Array.from({ length: 32 }, () => Math.round(-random() * 1e4) / 1e4),
    })),
  };
}

const OPERATORS = "+ - * / % & | ^ << >> && || ?? < > ===".split(" ");

/** A random statement of 2-5 operations (`v = v + w * 1;`): its token shapes are rarely seen twice. */
function randomStatement(random: () => number): string {
  let expression = "v";
  for (let k = 2 + Math.floor(random() * 4); k > 0; k--)
    expression += ` ${OPERATORS[Math.floor(random() * OPERATORS.length)]} ${random() < 0.5 ? "w" : "1"}`;
  return `v = ${expression};`;
}

/**
 * A seeded variant of `source`: after each line ending in `;`, a random statement with probability
 * 1/2. Two variants of one program score about 0.4 in code, a variant and its base 0.5
 * (measured on the library); a near-duplicate needs 0.375 with equal descriptions.
 */
function variantProgram(source: string, random: () => number): string {
  return source
    .split("\n")
    .map((line) =>
      line.trimEnd().endsWith(";") && random() < 0.5 ? `${line} ${randomStatement(random)}` : line,
    )
    .join("\n");
}

/** A seeded variant of `description`: each word swapped, with probability 1/2, for one of `vocabulary`. */
function variantDescription(
  description: string,
  vocabulary: readonly string[],
  random: () => number,
): string {
  return description
    .split(" ")
    .map((w) =>
      random() < 0.5 ? (vocabulary[Math.floor(random() * vocabulary.length)] as string) : w,
    )
    .join(" ");
}

/** Every fake design is valid at its first answer, which is the slot's trained sample. */
const FIRST_ANSWER = { seq: 0, attempt: 0, repairTurn: 0, outcome: "valid", trainable: true };

/** Designs the dedupe comparison flagged as near-duplicates (`--dedupe`). */
let flagged = 0;
/** Of each step's dedupe comparison, the time of the archive search (the rest: the new design's fingerprint). */
let searchMsByStep: number[] = [];

/** Every word of the library's descriptions, in order of first use: what a variant's description draws from. */
const vocabulary = (() => {
  let words: string[] | null = null;
  return (library: readonly LibraryProgram[]) => {
    words ??= [...new Set(library.flatMap((p) => p.meta.description.split(" ")))];
    return words;
  };
})();

/** The design stage of a regeneration step, its sampling faked: memory and dedupe reads are the loop's. */
function design(store: RunStore, library: readonly LibraryProgram[], step: number): number {
  const records = memoryRecords(store, library, step, config.memoryWindow);
  const archive = dedupeArchive(store, step);
  const { skills, regenerateEvery, skillsPerRegen } = config;
  let compareMs = 0;
  store.transaction(() => {
    for (let slot = 0; slot < config.designsPerStep; slot++) {
      const skill = slotSkill(skills, step, slot, regenerateEvery, skillsPerRegen);
      const memory = selectMemory(
        records,
        skill,
        mulberry32(seedOf(config.seed, "memory", step, slot, 0)),
        {
          windowSize: config.memoryWindow,
        },
      );
      const base = library[(step + slot) % library.length] as LibraryProgram;
      const envId = designedEnvId(step, slot);
      const random = mulberry32(seedOf(config.seed, "bench-variant", envId));
      const program = dedupe
        ? variantProgram(base.source, random)
        : `${base.source}\n// ${envId}\n`;
      const description = dedupe
        ? variantDescription(base.meta.description, vocabulary(library), random)
        : base.meta.description;
      if (dedupe) {
        const compared = performance.now();
        const print = fingerprint(program, description);
        const searched = performance.now();
        if (findDuplicate(print, archive)) flagged++;
        searchMsByStep[step] = (searchMsByStep[step] ?? 0) + performance.now() - searched;
        compareMs += performance.now() - compared;
      }
      const references = memory.references.map((r) => r.code).join("\n\n");
      store.insertDesign({
        ...FIRST_ANSWER,
        step,
        slot,
        skill,
        docId: `doc-${step}-${slot}`,
        prompt: [
          { role: "system", content: "You design executable environments." },
          { role: "user", content: `Skill: ${skill}\n\nReferences:\n${references}` },
        ],
        completion: `\`\`\`javascript\n${program}\`\`\``,
        program,
        report: null,
        duplicateOf: null,
        memoryRefs: {
          references: memory.references.map((r) => r.id),
          avoid: memory.avoid?.record.id ?? null,
        },
        tokens: null,
        envId,
      });
      store.insertEnvironment({
        id: envId,
        name: `${base.meta.name}-${step}-${slot}`,
        skill,
        description,
        code: program,
        meta: base.meta,
        source: "designer",
        createdStep: step,
        slot,
        docId: `doc-${step}-${slot}`,
        hint: "Work from the ends.",
        stats: EMPTY_STATS,
      });
    }
  });
  return compareMs;
}

/** The play stage, its sampling faked: each environment's group in one transaction, as loop/play.ts writes it. */
function play(store: RunStore, step: number, pool: readonly EnvironmentRow[], plays: number): void {
  for (const env of pool) {
    const random = mulberry32(seedOf(config.seed, "bench-play", step, env.id));
    const difficulty = mulberry32(seedOf(config.seed, "bench-env", env.id))();
    const seeds = playSeeds(config.seed, step, env.id, plays);
    const hinted = env.source === "designer" && env.createdStep === step ? config.hintedPlays : 0;
    store.transaction(() => {
      for (let idx = 0; idx < plays + hinted; idx++) {
        const isHinted = idx >= plays;
        const success = random() < (isHinted ? Math.min(1, difficulty + 0.3) : difficulty);
        const turns = 1 + Math.floor(random() * 25);
        store.insertEpisode({
          step,
          envId: env.id,
          idx,
          seed: seeds[idx % plays] as number,
          hinted: isHinted,
          return: success ? 1 : 0,
          success,
          turns,
          failure: null,
          failureCode: null,
          rewards: Array.from({ length: Math.min(turns, 6) }, (_, t) =>
            t === Math.min(turns, 6) - 1 && success ? 1 : 0,
          ),
          transcript: transcript(turns, success, isHinted),
          trace: trace(turns, random),
        });
      }
    });
  }
}

/** What one simulated run measured, step by step. */
interface Measured {
  msByStep: Array<Record<Phase, number>>;
  /** CPU time (user + system) of each step, ms: unlike wall time, not stretched by other processes on a shared machine. */
  cpuMsByStep: number[];
  compareMsByStep: number[];
  /** Resident set and V8 heap in use after each step, bytes. */
  memoryByStep: Array<{ rss: number; heapUsed: number }>;
  storeMiB: number;
}

/** Simulates `count` steps into a new store in `dir` (see the module comment). */
function simulate(dir: string, library: readonly LibraryProgram[], count: number): Measured {
  const store = RunStore.open(dir, "create");
  const measured: Measured = {
    msByStep: [],
    cpuMsByStep: [],
    compareMsByStep: [],
    memoryByStep: [],
    storeMiB: 0,
  };
  const { msByStep, compareMsByStep } = measured;
  try {
    store.setMeta("config", JSON.stringify(config));
    for (let step = 0; step < count; step++) {
      const ms = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
      const cpu = process.cpuUsage();
      let mark = performance.now();
      const lap = (phase: Phase) => {
        const now = performance.now();
        ms[phase] += now - mark;
        mark = now;
      };
      store.beginStep(step);
      compareMsByStep[step] = 0;
      if (step % config.regenerateEvery === 0) compareMsByStep[step] = design(store, library, step);
      lap("design");
      // The dedupe comparison is the design stage's own work (designer/dedupe.ts), not a store read: reported apart.
      ms.design -= compareMsByStep[step] ?? 0;
      const pool = stepPool(config, store, library, step);
      lap("pool");
      const plays = playsPerEnv(config, pool.length);
      play(store, step, pool, plays);
      lap("play");
      const score = scoreStep(readScoreInput(store, config, step, pool, plays));
      lap("score");
      // The rows the trainer is given (loop/run.ts trainSamples): the step's episodes and the window's designs.
      const fromStep = scoreWindowStart(config, step);
      store.episodes({ step });
      store.designs({ fromStep });
      lap("train");
      store.transaction(() => {
        for (const [id, stats] of score.stats) store.updateStats(id, stats);
        for (const sample of score.samples) store.insertSample(sample);
        store.setState("lp", score.lpState);
        store.completeStep(step, score.metrics);
      });
      lap("commit");
      const cpuUsed = process.cpuUsage(cpu);
      // The dedupe comparison's CPU is left out too (its wall time is, above; it runs on this thread).
      measured.cpuMsByStep.push(
        (cpuUsed.user + cpuUsed.system) / 1000 - (compareMsByStep[step] ?? 0),
      );
      msByStep.push(ms);
      // At the two steps reported, the heap is collected first (outside the step's time), so heap used is what is kept.
      if (step === 9 || step === count - 1) (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      measured.memoryByStep.push({ rss, heapUsed });
      if ((step + 1) % 50 === 0) {
        const total = PHASES.reduce((sum, p) => sum + ms[p], 0);
        console.error(
          `step ${step + 1}: ${total.toFixed(0)} ms (${JSON.stringify(ms, (_, v) => (typeof v === "number" ? Math.round(v) : v))})`,
        );
      }
    }
    store.close();
    measured.storeMiB = statSync(store.path).size / 2 ** 20;
    return measured;
  } finally {
    store.close();
  }
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "spade-bench-growth-"));
  try {
    const library = await loadLibrary(config.sandbox);
    // A short run first, so that step 10 of the measured run is not timed before the JIT warmed up.
    simulate(join(root, "warm-up"), library, 12);
    flagged = 0;
    searchMsByStep = [];
    const { msByStep, cpuMsByStep, compareMsByStep, memoryByStep, storeMiB } = simulate(
      join(root, "run"),
      library,
      steps,
    );
    const R = config.regenerateEvery;
    // A step's cost depends on its place in the regeneration cycle, so compare whole cycles: the
    // median, over the CYCLES cycles around a step, of each cycle's mean. One cycle alone moved
    // the ratio between 0.73 and 1.35 from run to run on the shared machine (a slow moment of a
    // few steps); the growth over CYCLES * R steps is nothing beside that of 400.
    const cyclesAround = (step: number): number[][] => {
      const last = steps - (steps % R) - R;
      const first = Math.max(0, Math.min(step - (step % R) - 2 * R, last - (CYCLES - 1) * R));
      return Array.from({ length: CYCLES }, (_, c) =>
        Array.from({ length: R }, (_, i) => first + c * R + i),
      ).filter((cycle) => cycle[R - 1]! < steps);
    };
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    /** The median over the cycles of `of(step)`'s mean over each cycle. */
    const typical = (cycles: number[][], of: (step: number) => number) =>
      median(cycles.map((cycle) => mean(cycle.map(of))));
    const total = (s: number) => PHASES.reduce((sum, p) => sum + (msByStep[s]?.[p] ?? 0), 0);
    const report = (label: number) => {
      const cycles = cyclesAround(label - 1);
      const phases = PHASES.map(
        (p) => `${p} ${typical(cycles, (s) => msByStep[s]?.[p] ?? 0).toFixed(1)}`,
      ).join(", ");
      const memory = memoryByStep[label - 1] ?? { rss: 0, heapUsed: 0 };
      const compareMs = typical(cycles, (s) => compareMsByStep[s] ?? 0);
      // One step of each cycle designs, `designsPerStep` compares.
      const perDesignMs = (compareMs * R) / config.designsPerStep;
      const searchMs = (typical(cycles, (s) => searchMsByStep[s] ?? 0) * R) / config.designsPerStep;
      const compare = dedupe
        ? `; dedupe compare ${compareMs.toFixed(1)} ms/step (${perDesignMs.toFixed(3)} ms per design, ${searchMs.toFixed(3)} of it the archive search)`
        : "";
      const cpuMs = typical(cycles, (s) => cpuMsByStep[s] ?? 0);
      const ms = typical(cycles, total);
      const span = `${cycles[0]![0]}-${cycles.at(-1)![R - 1]}`;
      console.log(
        `step ${label} (median of the ${cycles.length} cycles' means, steps ${span}): ${ms.toFixed(1)} ms/step wall (${phases}), ${cpuMs.toFixed(1)} ms/step CPU${compare}; rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`,
      );
      return { ms, cpuMs, compare: compareMs };
    };
    console.log(
      `loop growth: ${steps} steps, ${config.designsPerStep} designs every ${R} steps, ${playsPerEnv(config, config.designsPerStep)} unhinted plays per environment, ${config.hintedPlays} hinted on creation; store ${storeMiB.toFixed(0)} MiB`,
    );
    const early = report(10);
    const late = report(steps);
    if (dedupe) {
      const designs = (Math.floor((steps - 1) / R) + 1) * config.designsPerStep;
      console.log(`dedupe_flagged=${flagged} of ${designs} designs`);
      // What a resumed run does first: a new store's archive, every design fingerprinted and indexed.
      const reopened = RunStore.open(join(root, "run"), "read");
      const rebuilt = performance.now();
      const archive = dedupeArchive(reopened, steps);
      const rebuildMs = performance.now() - rebuilt;
      reopened.close();
      console.log(
        `dedupe archive rebuilt on resume: ${archive.size} designs in ${rebuildMs.toFixed(0)} ms (${(rebuildMs / archive.size).toFixed(2)} ms a design)`,
      );
      console.log(`dedupe_growth_ratio=${(late.compare / early.compare).toFixed(2)}`);
    }
    console.log(`loop_growth_wall_ratio=${(late.ms / early.ms).toFixed(2)}`);
    console.log(`loop_growth_ratio=${(late.cpuMs / early.cpuMs).toFixed(2)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
