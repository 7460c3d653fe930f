/**
 * @module cli/eval-run-suites
 * `spade eval gsm8k|math500|humaneval|mbpp|bbh --policy ...`: a model answers each item of a
 * held-out suite (K samples each); accuracy per suite (BBH: per task) and overall.
 */
import { defineCommand } from "citty";
import { dataRoot } from "../eval/index.js";
import { isCodeSuite, loadSuite, PythonSandbox, type SuiteName } from "../eval/suites/index.js";
import { suiteTasks } from "../eval/run/index.js";
import { codeSandboxOptions, codeSuiteArgs } from "./common.js";
import { evalRunArgs, withEvalInterrupt, limitFlag, runEvalCommand } from "./eval-run.js";
import { policyFromFlags } from "./policy.js";

/** The `spade eval SUITE --policy ...` command of one suite. */
export function suiteRunCommand(suite: SuiteName) {
  return defineCommand({
    meta: {
      name: suite,
      description: `Evaluate a policy on ${suite}: accuracy (pass@1 averaged over --samples), a results file per item, a summary table`,
    },
    args: {
      ...evalRunArgs,
      ...codeSuiteArgs,
    },
    async run({ args }) {
      const policy = policyFromFlags(args);
      const limit = limitFlag(args);
      const dataDir = dataRoot({ flag: args.data, env: process.env });
      const sandboxOptions = codeSandboxOptions(args);
      // Code suites: make the sandbox first, so a machine without isolation fails before any request.
      const runner = isCodeSuite(suite) ? await PythonSandbox.create(sandboxOptions) : undefined;
      const items = await loadSuite(suite, { limit, dataDir, runner });
      await withEvalInterrupt(
        (signal) =>
          runEvalCommand({
            benchmark: suite,
            flags: args,
            policy,
            tasks: suiteTasks(items),
            signal,
            settings: { limit: limit ?? null, ...(runner && { sandbox: runner.confinement() }) },
          }),
        policy.outage,
      );
    },
  });
}
