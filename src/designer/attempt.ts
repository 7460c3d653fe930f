/**
 * @module designer/attempt
 * One design slot: up to `maxAttempts` attempts, each with a fresh grounding document, each
 * optionally followed by repair turns that send the refusal back. Every completion becomes a
 * record (prompt, completion, program, extraction outcome, validation report, duplicate match);
 * a refused design is data. Returns the records and the first valid, non-duplicate program.
 */
import { libraryEnvId } from "../envs/index.js";
import {
  checkEnv,
  referenceGate,
  type CheckOptions,
  type CheckReport,
  type EnvMeta,
} from "../env/index.js";
import { describeError, isSpadeError, SpadeError } from "../errors.js";
import {
  loadProgram,
  resolveLimits,
  type SandboxBackendName,
  type SandboxLimits,
} from "../sandbox/index.js";
import {
  archivedProgram,
  DEFAULT_DUPLICATE_THRESHOLD,
  fingerprint,
  type ArchivedProgram,
  type DuplicateMatch,
  type Fingerprint,
} from "./dedupe.js";
import { DedupeIndex, type DedupeArchive } from "./dedupe-index.js";
import { extractProgram, stripThinking, type ExtractOutcome } from "./extract.js";
import { buildDesignerPrompt } from "./prompt.js";
import { renderRepairMessage, type DesignProblem } from "./repair.js";
import type { SkillInfo, ToolUseTaskType } from "./skills.js";
import type {
  CompleteFn,
  DesignerCompletion,
  DesignerMessage,
  ExampleProgram,
  GroundingDocument,
  MemoryReference,
} from "./types.js";

/** Default of `DesignSlotOptions.maxAttempts` (the issue's; the reference uses 3). */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** Settings of one design slot. */
export interface DesignSlotOptions<C extends DesignerCompletion> {
  /** The skill to design for. */
  skill: SkillInfo;
  /** Tool use only: the task type. Default `execute`. */
  taskType?: ToolUseTaskType;
  /** Memory references shown as "write something different". Default none. */
  references?: readonly MemoryReference[];
  /** The memory entry to avoid. Default none. */
  avoid?: MemoryReference | null;
  /**
   * Memory drawn afresh for each attempt (the reference rebuilds the prompt, memory included, per
   * attempt: `orchestrator.py` `_generate_single_game_async`); when set it replaces `references`
   * and `avoid`.
   */
  memoryFor?: (attempt: number) => {
    references: readonly MemoryReference[];
    avoid: MemoryReference | null;
  };
  /** Library examples shown in the prompt; they join the dedupe archive as `lib-<name>` (`libraryEnvId`). Default none. */
  examples?: readonly ExampleProgram[];
  /** Archived programs a new design must not nearly duplicate (an array is indexed for the slot). Default none. */
  archive?: DedupeArchive | readonly ArchivedProgram[];
  /** The next grounding document; called once per attempt; null: no document (`--corpus none`). Its errors propagate. */
  nextDocument: () => Promise<GroundingDocument | null>;
  /** The designer model. A rejection with a SpadeError (other than E_CANCELLED) is recorded; others propagate. */
  complete: CompleteFn<C>;
  /** Attempts, each with a fresh document. Default 5. */
  maxAttempts?: number;
  /** Repair turns after a refused completion within one attempt. Default 0 (the reference has none). */
  repairTurns?: number;
  /** Dedupe threshold. Default `DEFAULT_DUPLICATE_THRESHOLD`. */
  duplicateThreshold?: number;
  /** Sandbox backend for loading and validating. Default `isolated-vm`. */
  backend?: SandboxBackendName;
  /** The language designs are written in (prompt, extraction, sandbox). Default `javascript`. */
  language?: "javascript" | "python";
  /** Sandbox limit overrides (also quoted in the prompt). */
  limits?: Partial<SandboxLimits>;
  /** Validator settings. */
  check?: CheckOptions;
  /** `strict` (default): `checkEnv`; `reference`: the reference's gate (`referenceGate`). */
  validation?: "strict" | "reference";
  /** Wraps each validation (a timing hook: benchmarks measure the validation stage through it); unset: runs it as is. */
  validating?: <T>(run: () => Promise<T>) => Promise<T>;
  /** Passed to the prompt. */
  referenceCodeMaxChars?: number;
  /** Cancels the slot between steps with E_CANCELLED. */
  signal?: AbortSignal;
}

/** What became of one completion. */
export type AttemptOutcome =
  | "valid"
  | "completion-failed"
  | "no-program"
  | "off-task"
  | "duplicate"
  | "invalid";

/** One designer completion and what became of it. */
export interface AttemptRecord<C extends DesignerCompletion = DesignerCompletion> {
  /** 0-based attempt number; each attempt has its own document. */
  attempt: number;
  /** 0 for the answer to the fresh prompt, 1.. for repair turns. */
  repairTurn: number;
  /** The attempt's grounding document, or null when designs are not grounded. */
  docId: string | null;
  /** The conversation sent to the model. */
  messages: DesignerMessage[];
  /** What the model returned; null when the call failed. */
  completion: C | null;
  /** The extracted program, or null. */
  program: string | null;
  /** The extraction outcome; null when the call failed. */
  extraction: ExtractOutcome | null;
  /** The validator's report; null when validation did not run (no program, or a duplicate). */
  report: CheckReport | null;
  /** The archived program this one nearly duplicates, or null. */
  duplicateOf: DuplicateMatch | null;
  outcome: AttemptOutcome;
  /**
   * `valid`: null; otherwise the failed call's error code, the extraction code, `E_OFF_TASK`,
   * `E_DUPLICATE`, or the first failed validator check.
   */
  failureCode: string | null;
  failure: string | null;
  /**
   * True for answers to a fresh prompt (repair turn 0): the samples that may be trained, as in the
   * reference; repair turns see validator feedback the designer policy never sees, so they are not.
   */
  trainable: boolean;
}

/** A design that passed: valid and not a near-duplicate. */
export interface AcceptedDesign {
  source: string;
  meta: EnvMeta;
  report: CheckReport;
  docId: string | null;
  /** Its fingerprint, for adding it to the archive. */
  fingerprint: Fingerprint;
}

/** The outcome of a slot. */
export interface SlotResult<C extends DesignerCompletion = DesignerCompletion> {
  records: AttemptRecord<C>[];
  /** The accepted design, or null when every attempt was refused. */
  design: AcceptedDesign | null;
  /** Index in `records` of the completion that produced `design`, or null. */
  acceptedIndex: number | null;
  /**
   * Index in `records` of the slot's training sample: the first turn of the accepted attempt, else
   * the first turn of the last attempt that got a completion; null when no call succeeded.
   */
  sampleIndex: number | null;
}

function positiveInt(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new SpadeError("E_CONFIG", `${name} must be an integer of at least ${min}, got ${value}`);
  return value;
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SpadeError("E_CANCELLED", "the design slot was cancelled");
}

/** Reads `meta` by loading the program once; null when it does not load (validation then says why). */
async function readMeta(
  source: string,
  backend: SandboxBackendName | undefined,
  limits: Partial<SandboxLimits> | undefined,
  language?: "javascript" | "python",
): Promise<EnvMeta | null> {
  try {
    const env = await loadProgram(source, { backend, limits, language });
    const meta = env.meta;
    await env.close();
    return meta;
  } catch {
    return null;
  }
}

/** Runs one design slot (see the module comment). */
export async function designSlot<C extends DesignerCompletion>(
  options: DesignSlotOptions<C>,
): Promise<SlotResult<C>> {
  const maxAttempts = positiveInt("maxAttempts", options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, 1);
  const repairTurns = positiveInt("repairTurns", options.repairTurns ?? 0, 0);
  const threshold = options.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD;
  const { signal } = options;
  const promptLimits = resolveLimits(options.limits);
  const given = options.archive ?? [];
  const archive: Archive = {
    programs: "findDuplicate" in given ? given : new DedupeIndex(given),
    examples: (options.examples ?? []).map((ex) =>
      archivedProgram(libraryEnvId(ex.name), ex.name, ex.source, ex.description ?? ""),
    ),
  };
  const records: AttemptRecord<C>[] = [];
  let sampleIndex: number | null = null;

  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    throwIfCancelled(signal);
    const document = await options.nextDocument();
    const memory = options.memoryFor
      ? options.memoryFor(attempt)
      : { references: options.references, avoid: options.avoid };
    let messages = buildDesignerPrompt({
      skill: options.skill,
      document,
      references: memory.references,
      avoid: memory.avoid,
      examples: options.examples,
      taskType: options.taskType,
      referenceCodeMaxChars: options.referenceCodeMaxChars,
      limits: promptLimits,
      language: options.language,
    });
    for (let repairTurn = 0; repairTurn <= repairTurns; repairTurn++) {
      throwIfCancelled(signal);
      const base = {
        attempt,
        repairTurn,
        docId: document?.docId ?? null,
        messages,
        program: null,
        report: null,
        duplicateOf: null,
      };
      let completion: C;
      try {
        completion = await options.complete(messages);
      } catch (err) {
        if (!isSpadeError(err) || err.code === "E_CANCELLED") throw err;
        records.push({
          ...base,
          completion: null,
          extraction: null,
          outcome: "completion-failed",
          failureCode: err.code,
          failure: describeError(err),
          trainable: false,
        });
        break;
      }
      if (repairTurn === 0) sampleIndex = records.length;
      const record: AttemptRecord<C> = {
        ...base,
        completion,
        extraction: null,
        outcome: "no-program",
        failureCode: null,
        failure: null,
        trainable: repairTurn === 0,
      };
      records.push(record);
      const problem = await judge(record, archive, threshold, options);
      if (!problem) {
        const report = record.report as CheckReport;
        const source = record.program as string;
        const meta = report.meta as EnvMeta;
        const design = {
          source,
          meta,
          report,
          docId: document?.docId ?? null,
          fingerprint: fingerprint(source, meta.description),
        };
        return { records, design, acceptedIndex: records.length - 1, sampleIndex };
      }
      messages = [
        ...messages,
        { role: "assistant", content: stripThinking(completion.text).trim() },
        { role: "user", content: renderRepairMessage(problem, options.language) },
      ];
    }
  }
  return { records, design: null, acceptedIndex: null, sampleIndex };
}

/**
 * Why a program does not fit a slot for `skill`, or null: `meta.skill` names another skill
 * (compared ignoring case and spacing), a tool-use design declares no tools, or a game declares some.
 */
export function offTaskReason(meta: EnvMeta, skill: SkillInfo): string | null {
  const norm = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();
  if (norm(meta.skill) !== norm(skill.name))
    return `meta.skill is ${JSON.stringify(meta.skill)}, but this design is for ${JSON.stringify(skill.name)}`;
  if (skill.kind === "tool-use" && meta.tools.length === 0)
    return "a tool-use environment must declare its tools in meta.tools";
  if (skill.kind === "game" && meta.tools.length > 0)
    return "a game must not declare tools: meta.tools must be empty";
  return null;
}

/** What a design must not nearly duplicate: the archive, then the slot's library examples. */
interface Archive {
  programs: DedupeArchive;
  examples: readonly ArchivedProgram[];
}

/** Sets `record`'s outcome. */
function settle<C extends DesignerCompletion>(
  record: AttemptRecord<C>,
  outcome: AttemptOutcome,
  failureCode: string | null,
  failure: string | null,
): void {
  record.outcome = outcome;
  record.failureCode = failureCode;
  record.failure = failure;
}

/**
 * Extracts, checks the fit, dedupes and validates `record`'s completion, filling the record in;
 * returns the problem, or null when the design is accepted. The fit and dedupe run before
 * validation (they need only `meta`, read by loading the program once), so they cost no
 * validation time; a program that does not load goes straight to validation, which says why.
 */
async function judge<C extends DesignerCompletion>(
  record: AttemptRecord<C>,
  archive: Archive,
  threshold: number,
  opts: DesignSlotOptions<C>,
): Promise<DesignProblem | null> {
  const extraction = extractProgram((record.completion as C).text, opts.language);
  record.extraction = extraction;
  if (!extraction.ok) {
    settle(record, "no-program", extraction.code, extraction.message);
    return { kind: "extraction", outcome: extraction };
  }
  const program = extraction.program;
  record.program = program;
  const meta = await readMeta(program, opts.backend, opts.limits, opts.language);
  const offTask = meta ? offTaskReason(meta, opts.skill) : null;
  if (offTask) {
    settle(record, "off-task", "E_OFF_TASK", offTask);
    return { kind: "off-task", reason: offTask };
  }
  const match = meta
    ? archive.programs.findDuplicate(
        fingerprint(program, meta.description),
        threshold,
        archive.examples,
      )
    : null;
  if (match) {
    record.duplicateOf = match;
    settle(
      record,
      "duplicate",
      "E_DUPLICATE",
      `nearly the same as "${match.name}" (score ${match.score.toFixed(2)})`,
    );
    return { kind: "duplicate", match };
  }
  throwIfCancelled(opts.signal);
  const open = () =>
    loadProgram(program, { backend: opts.backend, limits: opts.limits, language: opts.language });
  const validate = () =>
    opts.validation === "reference" ? referenceGate(open) : checkEnv(open, opts.check);
  const report = await (opts.validating ? opts.validating(validate) : validate());
  record.report = report;
  if (report.ok) {
    settle(record, "valid", null, null);
    return null;
  }
  settle(
    record,
    "invalid",
    report.failures[0] ?? null,
    report.checks.find((c) => !c.ok)?.message ?? null,
  );
  return { kind: "invalid", report };
}
