/**
 * @module eval/bfcl
 * BFCL v4 as native TypeScript: multi-turn (base, miss_func, miss_param, long_context) ports of
 * upstream's eight API classes, its executor and checkers, golden replay, and `Env` wrappers;
 * single-turn non_live and live (./single).
 */
export { BFCL_CLASS_NAMES, createApi, isStatelessClass } from "./classes/index.js";
export { bindArgs, type Args, type BfclApi, type MethodSpec, type ParamSpec } from "./api.js";
export { BfclSession, type BfclSessionOptions } from "./session.js";
export { BfclInstances, formatResult } from "./executor.js";
export { isLongContext, testCategoryOf } from "./categories.js";
export {
  BFCL_CATEGORIES,
  FUNC_DOC_FILES,
  entriesPath,
  goldenPath,
  loadEntries,
  loadFunctionDocs,
  loadGolden,
  loadLongContextData,
  resolveBfclDataDir,
  type BfclCategory,
  type BfclEntry,
  type BfclFunctionDoc,
  type BfclMessage,
  type GoldenEntry,
} from "./data.js";
export { goldenJson, instancesState, jsonEqual, stateChecker, type StateCheck } from "./state.js";
export {
  checkEntry,
  isEmptyExecuteResponse,
  missingUnordered,
  type CheckResult,
  type ModelCallsByTurn,
} from "./checker.js";
export {
  replayCategory,
  replayEntry,
  type ReplayMismatch,
  type ReplayOptions,
  type ReplayReport,
} from "./replay.js";
export {
  ADDED_FUNCTIONS_PROMPT,
  BFCL_MAX_STEPS_PER_TURN,
  BfclEnv,
  bfclEnv,
  entryTools,
  type BfclEnvOptions,
} from "./env.js";
export { callSource, jsonArgsOf, pyCallFromJson, toJsonSchema, toolSpecOf } from "./tools.js";
export * from "./single/index.js";
