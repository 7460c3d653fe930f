/**
 * @module loop/design
 * The design stage of a regeneration step: every slot gets its skill (`loop/schedule.ts`), its
 * documents (drawn up front, in slot order, so the sequence does not depend on which slot
 * finishes first), its memory references (drawn per attempt, or once per slot with
 * `memoryDraws: slot`), and up to `maxAttempts` designer completions; each slot is stored in one
 * transaction. Slots already in the store (a resumed step) are skipped.
 */
import type { RunConfig } from "../config/index.js";
import {
  designSlot,
  getSkill,
  pickExamples,
  taskTypeForSlot,
  writeModelHint,
  type DedupeArchive,
  type DesignerMessage,
  type GroundingDocument,
  type MemoryReference,
} from "../designer/index.js";
import type { Json } from "../env/index.js";
import { SpadeError } from "../errors.js";
import { mulberry32 } from "../random/index.js";
import type { Sampler } from "../grounding/index.js";
import { selectMemory, type EnvRecord } from "../memory/index.js";
import { EMPTY_STATS, type EnvStats, type RunStore } from "../store/index.js";
import { designedEnvId, seedOf } from "./keys.js";
import type { LibraryProgram } from "./library.js";
import { hintSampling, runSampling, type LoopCompletion, type LoopPolicy } from "./policy.js";
import { slotSkill } from "./schedule.js";
import { dedupeArchive, memoryRecords } from "./design-memory.js";

/** What the design stage needs. */
export interface DesignContext {
  config: RunConfig;
  store: RunStore;
  policy: LoopPolicy;
  library: readonly LibraryProgram[];
  /** The document sampler; null with `--corpus none` (designs are not grounded). */
  sampler: Sampler | null;
  /** The weights version the stage samples with, stored with every attempt (loop/pipeline.ts). */
  weightsVersion: number;
  /** Stats of the steps scored but not yet committed, by environment (loop/pipeline.ts); unset: none. */
  pendingStats?: () => ReadonlyMap<string, EnvStats>;
  /** Wraps each validation of a program (a timing hook for benchmarks); unset: runs it as is. */
  validating?: <T>(run: () => Promise<T>) => Promise<T>;
  signal?: AbortSignal;
  /** Told the stage's attempts finished, their total and the valid designs stored, at its start and as they change (progress; see `StepWork`). */
  onAttempts?: (done: number, total: number, valid: number) => void;
}

/** Counts of the design stage for `onAttempts`. */
interface AttemptCounts {
  done: number;
  total: number;
  valid: number;
}

function toReference(r: EnvRecord): MemoryReference {
  return {
    name: r.name,
    skill: r.skill,
    description: r.description,
    winRate: r.winRate,
    regret: r.regret,
    source: r.code,
  };
}

/** Runs the design stage of `step` (see the module comment). Returns how many slots it ran. */
export async function designStep(ctx: DesignContext, step: number): Promise<number> {
  const { config, store } = ctx;
  // Documents for every (slot, attempt), drawn in order whether or not the slot already ran.
  const documents: Array<Array<GroundingDocument | null>> = [];
  for (let slot = 0; slot < config.designsPerStep; slot++) {
    const docs: Array<GroundingDocument | null> = [];
    for (let a = 0; a < config.maxAttempts; a++) {
      const d = ctx.sampler ? await ctx.sampler.next() : null;
      docs.push(d ? { docId: d.docId, text: d.text } : null);
    }
    documents.push(docs);
  }
  const done = new Set(store.designOutcomes({ step }).map((d) => d.slot));
  // --memory off: no references, nothing to avoid, no library seeds.
  const records =
    config.memory === "on"
      ? memoryRecords(store, ctx.library, step, config.memoryWindow, ctx.pendingStats?.())
      : [];
  const archive = dedupeArchive(store, step);
  const examples = ctx.library.map((p) => ({
    name: p.name,
    skill: p.meta.skill,
    source: p.source,
    description: p.meta.description,
  }));
  const todo = Array.from({ length: config.designsPerStep }, (_, slot) => slot).filter(
    (slot) => !done.has(slot),
  );

  const counts: AttemptCounts = { done: 0, total: todo.length * config.maxAttempts, valid: 0 };
  if (todo.length > 0) ctx.onAttempts?.(counts.done, counts.total, counts.valid);
  await Promise.all(
    todo.map((slot) =>
      runSlot(
        ctx,
        step,
        slot,
        documents[slot] as Array<GroundingDocument | null>,
        records,
        archive,
        examples,
        counts,
      ),
    ),
  );
  return todo.length;
}

async function runSlot(
  ctx: DesignContext,
  step: number,
  slot: number,
  docs: Array<GroundingDocument | null>,
  records: EnvRecord[],
  archive: DedupeArchive,
  examples: Array<{ name: string; skill: string; source: string; description: string }>,
  counts: AttemptCounts,
): Promise<void> {
  const { config, store, policy } = ctx;
  const skillName = slotSkill(
    config.skills,
    step,
    slot,
    config.regenerateEvery,
    config.skillsPerRegen,
  );
  const skill = getSkill(skillName);
  // Per attempt (the reference's way) each draw is keyed by the attempt too; per slot, attempt 0's draw serves all.
  const perAttempt = config.memoryDraws === "attempt";
  const draws = new Map<number, ReturnType<typeof selectMemory>>();
  const memoryOf = (attempt: number) => {
    const key = perAttempt ? attempt : 0;
    let drawn = draws.get(key);
    if (!drawn) {
      const seed = perAttempt
        ? seedOf(config.seed, "memory", step, slot, key)
        : seedOf(config.seed, "memory", step, slot);
      drawn = selectMemory(records, skillName, mulberry32(seed), {
        windowSize: config.memoryWindow,
      });
      draws.set(key, drawn);
    }
    return drawn;
  };
  let attempt = 0;
  const complete = (messages: readonly DesignerMessage[]): Promise<LoopCompletion> =>
    policy.complete(messages, {
      ...runSampling(config),
      maxTokens: config.designerMaxTokens,
      seed: seedOf(config.seed, "design", step, slot, attempt++),
      signal: ctx.signal,
    });
  let next = 0;
  const result = await designSlot<LoopCompletion>({
    skill,
    taskType: config.mode === "tool-use" ? taskTypeForSlot(slot) : undefined,
    memoryFor: (a) => {
      const memory = memoryOf(a);
      return {
        references: memory.references.map(toReference),
        avoid: memory.avoid ? toReference(memory.avoid.record) : null,
      };
    },
    examples: pickExamples(examples, skill),
    archive,
    // Called as each attempt begins: the one before it is finished.
    nextDocument: async () => {
      if (next > 0) {
        counts.done++;
        ctx.onAttempts?.(counts.done, counts.total, counts.valid);
      }
      return docs[next++] ?? null;
    },
    complete,
    maxAttempts: config.maxAttempts,
    repairTurns: config.repairTurns,
    backend: config.sandbox,
    language: config.envLanguage ?? "javascript",
    validation: config.validation,
    check: { budgetMs: config.validationBudgetS * 1000 },
    ...(ctx.validating ? { validating: ctx.validating } : {}),
    signal: ctx.signal,
  });

  // The hint writer: a separate call of the same model, never stored as a design, so never trained.
  // Only hinted plays read the hint, so with none there is nothing to write it for.
  let hint: string | null = null;
  if (result.design && config.hints === "model" && config.hintedPlays > 0) {
    const written = await writeModelHint(
      result.design.source,
      result.design.meta,
      async (messages, hintAttempt) =>
        (
          await policy.complete(messages, {
            ...hintSampling(config),
            seed: seedOf(config.seed, "hint", step, slot, hintAttempt),
            signal: ctx.signal,
          })
        ).text,
      { attempts: config.hintRetries },
    );
    hint = written.hint;
  }
  // As a group of plays: a slot whose last request ended as the run was stopped is not stored
  // (that request may be the failure that tripped --outage-after); a resumed run designs it again.
  if (ctx.signal?.aborted)
    throw new SpadeError("E_CANCELLED", `design slot ${slot} of step ${step} was cancelled`);
  const envId = result.design ? designedEnvId(step, slot) : null;
  const memoryRefsOf = (a: number): Json => {
    const memory = memoryOf(a);
    return {
      references: memory.references.map((r) => r.id),
      avoid: memory.avoid?.record.id ?? null,
    };
  };
  store.transaction(() => {
    result.records.forEach((r, seq) => {
      const memoryRefs = memoryRefsOf(r.attempt);
      store.insertDesign({
        step,
        slot,
        seq,
        attempt: r.attempt,
        repairTurn: r.repairTurn,
        skill: skillName,
        docId: r.docId,
        prompt: r.messages as unknown as Json,
        completion: r.completion?.text ?? "",
        program: r.program,
        outcome: r.outcome,
        report: r.report,
        duplicateOf: r.duplicateOf?.id ?? null,
        memoryRefs,
        trainable: seq === result.sampleIndex,
        tokens: r.completion?.tokens ?? null,
        envId: seq === result.acceptedIndex ? envId : null,
        weightsVersion: ctx.weightsVersion,
      });
    });
    if (result.design && envId) {
      const { meta, source, docId } = result.design;
      store.insertEnvironment({
        id: envId,
        name: meta.name,
        skill: skillName,
        description: meta.description,
        code: source,
        meta,
        source: "designer",
        createdStep: step,
        slot,
        docId,
        hint,
        stats: EMPTY_STATS,
      });
    }
  });
  // The slot is stored: its last attempt is finished, and the attempts it did not need leave the total.
  if (next > 0) counts.done++;
  counts.total -= config.maxAttempts - next;
  if (result.design) counts.valid++;
  ctx.onAttempts?.(counts.done, counts.total, counts.valid);
}
