/**
 * @module eval/acebench
 * ACEBench's agent category in TypeScript: the phone-platform and travel APIs ported with their
 * exact behaviour, upstream's call decoding and executor, milestone replay, end-to-end and process
 * scoring, native `Env`s for multi-step and multi-turn (simulated-user) entries, and the normal and
 * special categories scored as upstream scores them, with the overall summary.
 */
export { API_CLASS_NAMES, type ApiClassName, type Lang } from "./api-base.js";
export {
  AceWorld,
  MULTI_TURN_ERROR_TEXT,
  SAVED_ATTRIBUTES,
  resultText,
  type ApiCall,
  type Execution,
  type ExecutionMode,
  type SavedState,
} from "./world.js";
export * from "./calls.js";
export {
  ACE_SETS,
  firstPath,
  loadAceEntries,
  loadReplaySummary,
  summaryKey,
  type AceCategory,
  type AceEntry,
  type AnswerSource,
  type FunctionDoc,
  type LoadOptions,
  type SummarySet,
} from "./data.js";
export {
  agentChecker,
  aggregateScores,
  checkEndToEnd,
  processAccuracy,
  scoreEntry,
  type EndToEndResult,
  type EntryScore,
  type MissingClassRule,
} from "./checker.js";
export {
  compareWithSummary,
  replayEntry,
  type ReplayOptions,
  type ReplayResult,
  type SummaryComparison,
} from "./replay.js";
export { AceBenchEnv, NOT_A_CALL_REPLY, type AceEnvOptions } from "./env.js";
export {
  AGENT_GREETING,
  userSimulatorPrompt,
  type DialogueTurn,
  type UserSimulator,
} from "./user.js";
export { agentRules, entryTools, toJsonSchema, toolSpec } from "./tools.js";
export {
  decodeNormalOutput,
  normalChecker,
  standardizeString,
  type NormalCall,
  type NormalVerdict,
} from "./normal.js";
export {
  NORMAL_CATEGORIES,
  SPECIAL_CATEGORIES,
  checkNormalItem,
  checkSpecialItem,
  goldOutput,
  groupMean,
  loadNsEntries,
  overallScore,
  scoreCategory,
  scoreVerdicts,
  unweightedMean,
  type NsCategory,
  type NsCategoryScore,
  type NsEntry,
  type NsItemResult,
} from "./categories.js";
export { AceNsEnv, answerAfterThinking, nsSystemPrompt, nsUserPrompt } from "./ns-env.js";
