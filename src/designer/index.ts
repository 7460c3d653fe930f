/**
 * @module designer
 * Public face of the designer: turning (skill, document, memory references) into a validated
 * environment program. Skills, the prompt, program extraction, dedupe, hints and design slots.
 */
export type * from "./types.js";
export {
  ALL_SKILLS,
  GAME_SKILLS,
  TOOL_USE_SKILLS,
  TOOL_USE_TASK_TYPES,
  TASK_TYPE_ROTATION,
  findSkill,
  getSkill,
  getTaskType,
  taskTypeForSlot,
} from "./skills.js";
export type { SkillInfo, SkillKind, TaskTypeInfo, ToolUseTaskType } from "./skills.js";
export { buildDesignerPrompt, pickExamples, DEFAULT_REFERENCE_CODE_MAX_CHARS } from "./prompt.js";
export type { DesignerPromptInput, PickExamplesOptions } from "./prompt.js";
export { renderRepairMessage, CHECK_ADVICE } from "./repair.js";
export type { DesignProblem } from "./repair.js";
export { extractProgram, stripThinking } from "./extract.js";
export type { ExtractCode, ExtractOutcome } from "./extract.js";
export {
  archivedProgram,
  descriptionWords,
  fingerprint,
  jaccard,
  normaliseCode,
  similarity,
  CODE_WEIGHT,
  DEFAULT_DUPLICATE_THRESHOLD,
  SHINGLE_TOKENS,
} from "./dedupe.js";
export type { ArchivedProgram, DuplicateMatch, Fingerprint, Similarity } from "./dedupe.js";
export { DedupeIndex, findDuplicate } from "./dedupe-index.js";
export type { DedupeArchive } from "./dedupe-index.js";
export {
  buildHintPrompt,
  parseHintAnswer,
  writeModelHint,
  withFixedHint,
  HINT_MODES,
  DEFAULT_HINT_ATTEMPTS,
  HINT_TOP_P,
} from "./hints.js";
export type { HintCompleteFn, HintMode, HintParse, ModelHintRecord } from "./hints.js";
export { designSlot, offTaskReason, DEFAULT_MAX_ATTEMPTS } from "./attempt.js";
export type {
  AcceptedDesign,
  AttemptOutcome,
  AttemptRecord,
  DesignSlotOptions,
  SlotResult,
} from "./attempt.js";
