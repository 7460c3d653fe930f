/**
 * @module bench/loop-growth-stages
 * The growth benchmark's design and play stages, their sampling faked: the designs and episodes
 * they write go through the loop's own read paths and the store's own writes.
 */
import { performance } from "node:perf_hooks";
import type { RunConfig } from "../config/index.js";
import { findDuplicate, fingerprint } from "../designer/index.js";
import { dedupeArchive, memoryRecords } from "../loop/design-memory.js";
import { designedEnvId, playSeeds, seedOf } from "../loop/keys.js";
import type { LibraryProgram } from "../loop/library.js";
import { slotSkill } from "../loop/schedule.js";
import { selectMemory } from "../memory/index.js";
import { mulberry32 } from "../random/index.js";
import { EMPTY_STATS, type EnvironmentRow, type RunStore } from "../store/index.js";
import {
  trace,
  transcript,
  variantDescription,
  variantProgram,
  vocabulary,
} from "./loop-growth-fakes.js";

/** What a simulated run is: the loop's configuration, and whether designs are compared with the dedupe archive. */
export interface GrowthRun {
  config: RunConfig;
  /** `--dedupe`: designs are seeded variants, each compared with the archive. */
  dedupe: boolean;
}

/** What the dedupe comparison counted over a run (`--dedupe`). */
export interface DedupeTally {
  /** Designs the dedupe comparison flagged as near-duplicates. */
  flagged: number;
  /** Of each step's dedupe comparison, the time of the archive search (the rest: the new design's fingerprint). */
  searchMsByStep: number[];
}

/** Every fake design is valid at its first answer, which is the slot's trained sample. */
const FIRST_ANSWER = { seq: 0, attempt: 0, repairTurn: 0, outcome: "valid", trainable: true };

/** The design stage of a regeneration step, its sampling faked: memory and dedupe reads are the loop's. */
export function design(
  run: GrowthRun,
  store: RunStore,
  library: readonly LibraryProgram[],
  step: number,
  tally: DedupeTally,
): number {
  const { config, dedupe } = run;
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
        if (findDuplicate(print, archive)) tally.flagged++;
        tally.searchMsByStep[step] =
          (tally.searchMsByStep[step] ?? 0) + performance.now() - searched;
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
export function play(
  config: RunConfig,
  store: RunStore,
  step: number,
  pool: readonly EnvironmentRow[],
  plays: number,
): void {
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
