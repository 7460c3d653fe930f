/**
 * @module eval/suites
 * Public face of the held-out reasoning, math and code suites (GSM8K, MATH-500, HumanEval, MBPP,
 * BIG-Bench Hard): items as single-turn `Env`s for the rollout code, and the graders' self-checks.
 */
export { SUITE_NAMES, type SuiteName, type EvalItem, type ItemSpec, type Grade } from "./types.js";
export { loadSuite, isSuiteName, isCodeSuite, type LoadSuiteOptions } from "./load.js";
export { goldCheck, type GoldReport } from "./gold.js";
export { SingleTurnEnv, toEvalItem } from "./single-turn-env.js";
export {
  mathAnswersEqual,
  perturbationCheck,
  perturb,
  PERTURBATIONS,
  type PerturbationReport,
  type PerturbationKind,
} from "./math/index.js";
export {
  PythonSandbox,
  DEFAULT_PYTHON_LIMITS,
  extractCode,
  type PythonLimits,
  type PythonSandboxOptions,
  type PythonRunResult,
  type PythonOutcome,
  type PythonRunner,
} from "./code/index.js";
export { bbhAnswersEqual, BBH_TASK_KINDS, type BbhKind } from "./bbh/index.js";
