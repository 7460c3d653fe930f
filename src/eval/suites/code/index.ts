/**
 * @module eval/suites/code
 * Public face of the code suites (HumanEval, MBPP, LiveCodeBench): the isolated Python sandbox
 * (with its cgroups per run), code extraction from answers, and the item loaders and graders.
 */
export {
  PythonSandbox,
  DEFAULT_PYTHON_LIMITS,
  type PythonLimits,
  type PythonSandboxOptions,
  type PythonRunResult,
  type SandboxConfinement,
} from "./python-sandbox.js";
export {
  planIsolation,
  DEFAULT_ISOLATION_COMMANDS,
  SANDBOX_UID,
  type IsolationPlan,
  type IsolationCommands,
} from "./isolation.js";
export type { CgroupParent, Controller } from "./cgroup.js";
export type { CgroupSetting } from "./cgroup-find.js";
export { classifyRun, lastExceptionLine, type PythonOutcome, type RunFacts } from "./outcome.js";
export { extractCode, fenceCode, CODE_INSTRUCTION } from "./extract.js";
export {
  loadHumanEval,
  loadMbpp,
  humanEvalProgram,
  mbppProgram,
  MBPP_TEST_IDS,
  type CodeSuiteLoader,
  type PythonRunner,
  type RunnerProvider,
} from "./suites.js";
export * from "./livecodebench.js";
