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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildConfig } from "../config/index.js";
import { dedupeArchive } from "../loop/design-memory.js";
import { loadLibrary } from "../loop/library.js";
import { playsPerEnv } from "../loop/play.js";
import { RunStore } from "../store/index.js";
import { reportStep } from "./loop-growth-report.js";
import { simulate } from "./loop-growth-simulate.js";
import type { GrowthRun } from "./loop-growth-stages.js";

const args = process.argv.slice(2);
const dedupe = args.includes("--dedupe");
const [steps = 400] = args.filter((a) => a !== "--dedupe").map(Number);
const config = buildConfig([{ steps, corpus: "none", seed: 7 }]);
const run: GrowthRun = { config, dedupe };

/** What a resumed run does first: a new store's archive, every design fingerprinted and indexed. */
function printArchiveRebuild(dir: string): void {
  const reopened = RunStore.open(dir, "read");
  const rebuilt = performance.now();
  const archive = dedupeArchive(reopened, steps);
  const rebuildMs = performance.now() - rebuilt;
  reopened.close();
  console.log(
    `dedupe archive rebuilt on resume: ${archive.size} designs in ${rebuildMs.toFixed(0)} ms (${(rebuildMs / archive.size).toFixed(2)} ms a design)`,
  );
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "spade-bench-growth-"));
  try {
    const library = await loadLibrary(config.sandbox);
    // A short run first, so that step 10 of the measured run is not timed before the JIT warmed up.
    simulate(run, join(root, "warm-up"), library, 12);
    const measured = simulate(run, join(root, "run"), library, steps);
    const R = config.regenerateEvery;
    console.log(
      `loop growth: ${steps} steps, ${config.designsPerStep} designs every ${R} steps, ${playsPerEnv(config, config.designsPerStep)} unhinted plays per environment, ${config.hintedPlays} hinted on creation; store ${measured.storeMiB.toFixed(0)} MiB`,
    );
    const early = reportStep(run, measured, steps, 10);
    const late = reportStep(run, measured, steps, steps);
    if (dedupe) {
      const designs = (Math.floor((steps - 1) / R) + 1) * config.designsPerStep;
      console.log(`dedupe_flagged=${measured.flagged} of ${designs} designs`);
      printArchiveRebuild(join(root, "run"));
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
