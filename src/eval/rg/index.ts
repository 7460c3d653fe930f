/**
 * @module eval/rg
 * Public face of the reasoning-gym hard split (the paper's RG columns): the split and the
 * reference's settings, the Python worker that generates and grades with the real package, the
 * native environment, evaluation tasks and the graders' gold check.
 */
export {
  RG_CATEGORIES,
  RG_HARD_FILE,
  RG_SETTINGS,
  loadHardSplit,
  parseHardSplit,
  rgPrompt,
  rollup,
  type LoadHardSplitOptions,
  type RgCategory,
  type RgDataset,
} from "./split.js";
export {
  PROJECT_VENV_PYTHON,
  RG_WORKER_SCRIPT,
  RgWorker,
  RgWorkerPool,
  defaultRgPython,
  type RgProblem,
  type RgScore,
  type RgService,
  type RgWorkerOptions,
} from "./worker.js";
export { RG_WIN_SCORE, RgEnv, rgOracleText } from "./env.js";
export {
  RG_GROUP_ORDER,
  RG_SAMPLING,
  rgGroup,
  rgResults,
  rgSettingsRecord,
  rgTasks,
  type RgDatasetResult,
  type RgTask,
} from "./tasks.js";
export {
  RG_PERTURBATIONS,
  changeOneCharacter,
  rgGoldCheck,
  type RgGoldDataset,
  type RgGoldOptions,
  type RgGoldReport,
  type RgPerturbation,
} from "./gold.js";
