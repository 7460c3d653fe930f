/**
 * @module env
 * Public face of the environment contract: types, action parsing, returns, shape checks and the
 * validator.
 */
export type * from "./types.js";
export {
  extractAnswer,
  makeAction,
  actionFromOracle,
  parseToolCallText,
  parseOpenAIToolCalls,
  taggedBodies,
  withoutTagged,
} from "./action.js";
export type { OpenAIToolCall, ParsedToolCalls } from "./action.js";
export { episodeReturn, isSuccess, clampUnit, SUCCESS_THRESHOLD } from "./returns.js";
export {
  metaProblems,
  resetProblems,
  stepProblems,
  hintProblems,
  toolProblems,
  MAX_HINT_CHARS,
  MAX_TURNS_LIMIT,
} from "./shape.js";
export { sampleFromSchema } from "./schema-sample.js";
export { detectProgramLanguage, storedLanguage, type StoredLanguage } from "./language.js";
export { probeActions, trivialPolicies } from "./probes.js";
export { checkEnv } from "./check.js";
export { CHECK_CODES } from "./check-recorder.js";
export { referenceGate, REFERENCE_GATE } from "./reference-gate.js";
export { normalizeToolSchema, normalizeMetaTools } from "./tool-schema.js";
export type { CheckOptions, EnvOpener } from "./check.js";
export type { CheckCode, CheckResult, CheckReport } from "./check-recorder.js";
