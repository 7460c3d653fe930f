/**
 * @module loop/design
 * The design stage of a regeneration step: every slot gets its skill, its documents (drawn up
 * front, in slot order, so the sequence does not depend on which slot finishes first), its memory
 * references, and up to `maxAttempts` designer completions; each slot is stored in one
 * transaction. Slots already in the store (a resumed step) are skipped.
 */
import type { RunConfig } from "../config/index.js";
import {
  archivedProgram,
  designSlot,
  getSkill,
  pickExamples,
  taskTypeForSlot,
  writeModelHint,
  type ArchivedProgram,
  type DesignerMessage,
  type GroundingDocument,
  type MemoryReference,
} from "../designer/index.js";
import { mulberry32, type Json } from "../env/index.js";
import type { Sampler } from "../grounding/index.js";
import { librarySeedRecords, selectMemory, withLibrarySeeds, type EnvRecord } from "../memory/index.js";
import { EMPTY_STATS, type RunStore } from "../store/index.js";
import { designedEnvId, seedOf } from "./keys.js";
import type { LibraryProgram } from "./library.js";
import type { LoopCompletion, LoopPolicy } from "./policy.js";

/** What the design stage needs. */
export interface DesignContext {
  config: RunConfig;
  store: RunStore;
  policy: LoopPolicy;
  library: readonly LibraryProgram[];
  sampler: Sampler;
  signal?: AbortSignal;
}

function toReference(r: EnvRecord): MemoryReference {
  return { name: r.name, skill: r.skill, description: r.description, winRate: r.winRate, regret: r.regret, source: r.code };
}

/** The memory's records: designed environments measured before `step`, after the library seeds. */
function memoryRecords(ctx: DesignContext, step: number): EnvRecord[] {
  const archive: EnvRecord[] = [];
  for (const e of ctx.store.environments()) {
    if (e.source !== "designer" || e.createdStep >= step || e.stats.winRate === null) continue;
    archive.push({ id: e.id, name: e.name, skill: e.skill, description: e.description, code: e.code, winRate: e.stats.winRate, regret: e.stats.regret ?? 0, createdStep: e.createdStep });
  }
  const seeds = librarySeedRecords(ctx.library.map((p) => ({ name: p.name, skill: p.meta.skill, description: p.meta.description, code: p.source })));
  return withLibrarySeeds(archive, seeds);
}

/** Programs a new design must not nearly duplicate: designs of earlier steps. */
function dedupeArchive(ctx: DesignContext, step: number): ArchivedProgram[] {
  return ctx.store
    .environments()
    .filter((e) => e.source === "designer" && e.createdStep < step)
    .map((e) => archivedProgram(e.id, e.name, e.code, e.description));
}

/** Runs the design stage of `step` (see the module comment). Returns how many slots it ran. */
export async function designStep(ctx: DesignContext, step: number): Promise<number> {
  const { config, store } = ctx;
  // Documents for every (slot, attempt), drawn in order whether or not the slot already ran.
  const documents: GroundingDocument[][] = [];
  for (let slot = 0; slot < config.designsPerStep; slot++) {
    const docs: GroundingDocument[] = [];
    for (let a = 0; a < config.maxAttempts; a++) {
      const d = await ctx.sampler.next();
      docs.push({ docId: d.docId, text: d.text });
    }
    documents.push(docs);
  }
  const done = new Set(store.designs({ step }).map((d) => d.slot));
  const records = memoryRecords(ctx, step);
  const archive = dedupeArchive(ctx, step);
  const examples = ctx.library.map((p) => ({ name: p.name, skill: p.meta.skill, source: p.source, description: p.meta.description }));
  const todo = Array.from({ length: config.designsPerStep }, (_, slot) => slot).filter((slot) => !done.has(slot));

  await Promise.all(todo.map((slot) => runSlot(ctx, step, slot, documents[slot] as GroundingDocument[], records, archive, examples)));
  return todo.length;
}

async function runSlot(
  ctx: DesignContext,
  step: number,
  slot: number,
  docs: GroundingDocument[],
  records: EnvRecord[],
  archive: ArchivedProgram[],
  examples: Array<{ name: string; skill: string; source: string; description: string }>,
): Promise<void> {
  const { config, store, policy } = ctx;
  const skillName = config.skills[slot % config.skills.length] as string;
  const skill = getSkill(skillName);
  const memory = selectMemory(records, skillName, mulberry32(seedOf(config.seed, "memory", step, slot)), { windowSize: config.memoryWindow });
  const references = memory.references.map(toReference);
  const avoid = memory.avoid ? toReference(memory.avoid.record) : null;
  let attempt = 0;
  const complete = (messages: readonly DesignerMessage[]): Promise<LoopCompletion> =>
    policy.complete(messages, { temperature: config.temperature, maxTokens: config.designerMaxTokens, seed: seedOf(config.seed, "design", step, slot, attempt++), signal: ctx.signal });
  let next = 0;
  const result = await designSlot<LoopCompletion>({
    skill,
    taskType: config.mode === "tool-use" ? taskTypeForSlot(slot) : undefined,
    references,
    avoid,
    examples: pickExamples(examples, skill),
    archive,
    nextDocument: async () => docs[next++] as GroundingDocument,
    complete,
    maxAttempts: config.maxAttempts,
    repairTurns: config.repairTurns,
    backend: config.sandbox,
    check: { budgetMs: config.validationBudgetS * 1000 },
    signal: ctx.signal,
  });

  let hint: string | null = null;
  if (result.design && config.hints === "model") {
    const written = await writeModelHint(result.design.source, result.design.meta, async (messages) => (await complete(messages)).text);
    hint = written.hint;
  }
  const envId = result.design ? designedEnvId(step, slot) : null;
  const memoryRefs = { references: memory.references.map((r) => r.id), avoid: memory.avoid?.record.id ?? null };
  store.transaction(() => {
    result.records.forEach((r, seq) => {
      store.insertDesign({
        step, slot, seq, attempt: r.attempt, repairTurn: r.repairTurn, skill: skillName, docId: r.docId,
        prompt: r.messages as unknown as Json, completion: r.completion?.text ?? "", program: r.program, outcome: r.outcome,
        report: r.report, duplicateOf: r.duplicateOf?.id ?? null, memoryRefs, trainable: seq === result.sampleIndex,
        tokens: r.completion?.tokens ?? null, envId: seq === result.acceptedIndex ? envId : null,
      });
    });
    if (result.design && envId) {
      const { meta, source, docId } = result.design;
      store.insertEnvironment({ id: envId, name: meta.name, skill: skillName, description: meta.description, code: source, meta, source: "designer", createdStep: step, slot, docId, hint, stats: EMPTY_STATS });
    }
  });
}
