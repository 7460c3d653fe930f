/**
 * @module eval/suites/bbh
 * Public face of BIG-Bench Hard: per-task answer normalisation and the item loaders.
 * CANARY: BBH is evaluation-only data; never use it for training.
 */
export {
  bbhAnswersEqual,
  choiceLetter,
  cleanBbhAnswer,
  parseOptions,
  BBH_INSTRUCTIONS,
  BBH_TASK_KINDS,
  type BbhKind,
} from "./grade.js";
export { bbhTasks, loadBbh, loadBbhTask } from "./suite.js";
