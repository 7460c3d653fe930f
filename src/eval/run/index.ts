/**
 * @module eval/run
 * Public face of model evaluation: the shared runner (K samples per item, results files,
 * resume, summaries) and the adapters that turn suites, BFCL and ACEBench entries into tasks.
 */
export type { EvalTask, ItemResult, RunInfo, SampleRecord } from "./types.js";
export {
  runEval,
  sampleRecord,
  type EvalAgentContext,
  type EvalProgress,
  type EvalRun,
  type RunEvalOptions,
} from "./runner.js";
export {
  itemFileName,
  itemsDir,
  prepareOutDir,
  readItemResults,
  serverFailedItem,
  writeItemResult,
  writeJsonAtomic,
} from "./results.js";
export {
  formatRate,
  itemAccuracy,
  summarize,
  summarizeItems,
  summaryTable,
  type GroupSummary,
} from "./summary.js";
export { suiteGroup, suiteTasks, type SuiteTask } from "./suites.js";
export {
  BFCL_CATEGORY_SIZES,
  bfclOverall,
  bfclSingleTasks,
  type BfclOverall,
  type BfclScore,
  type BfclSingleTask,
} from "./bfcl-overall.js";
export {
  bfclLeaderboard,
  bfclMetrics,
  bfclTasks,
  fcAgent,
  fcObservation,
  type BfclLeaderboard,
  type BfclTask,
  type BfclTaskOptions,
} from "./bfcl.js";
export {
  aceMetrics,
  aceScores,
  aceSetName,
  aceTasks,
  chatUserSimulator,
  USER_SAMPLING,
  type AceSetScore,
  type AceTask,
  type AceTaskOptions,
} from "./acebench.js";
export {
  aceNsEntries,
  aceNsScores,
  aceNsTasks,
  type AceNsCategoryScore,
  type AceNsTask,
} from "./acebench-ns.js";
