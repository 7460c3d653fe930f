/**
 * @module eval/bfcl/single
 * BFCL v4 single-turn (non_live, live): data, upstream's AST checker with its Java/JavaScript
 * converters, and the entry as an `Env`.
 */
export {
  astCheck,
  isEmptyOutput,
  relevanceCheck,
  simpleFunctionChecker,
  standardizeString,
  type AstCheckOptions,
  type AstVerdict,
  type SingleFunctionDoc,
} from "./ast-checker.js";
export {
  BFCL_LIVE,
  BFCL_NON_LIVE,
  isRelevanceCategory,
  loadSingleEntries,
  type BfclSingleCategory,
  type BfclSingleEntry,
} from "./data.js";
export { languageOf, type BfclLanguage } from "./ast-checker.js";
export { JAVA_TYPE_CONVERSION, javaTypeConverter } from "./java-types.js";
export { JS_TYPE_CONVERSION, jsTypeConverter } from "./js-types.js";
export { renderOutput, renderSource } from "./render.js";
export { BfclSingleEnv, checkSingle, singleToolDocs } from "./env.js";
