/**
 * @module cli/eval-env
 * `spade eval env REF... --policy ...`: evaluates a policy on environments named like `spade env
 * run` takes them (library names, program files, remote OpenEnv environments `openenv+ws://...`):
 * one item per environment, `--samples K` episodes each (seeds 0..K-1), success rate per
 * environment and overall, with the results folder, resume and summary of every eval command.
 */
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import type { EvalTask } from "../eval/run/index.js";
import { parseOpenEnvRef, isOpenEnvRef } from "../envs/index.js";
import { openableProgram, sandboxArg } from "./common.js";
import { evalRunArgs, withEvalInterrupt, runEvalCommand } from "./eval-run.js";
import { policyFromFlags } from "./policy.js";

/** `spade eval env` */
export const envEvalCommand = defineCommand({
  meta: {
    name: "env",
    description:
      "Evaluate a policy on environments (library names, files, openenv+ws://HOST:PORT/NAME): success rate over --samples episodes each",
  },
  args: {
    ...evalRunArgs,
    envs: {
      type: "positional",
      description: "environments: library names, program files or openenv+ws://HOST:PORT/NAME",
      required: true,
    },
    sandbox: sandboxArg,
  },
  async run({ args }) {
    const refs = args._ as string[];
    if (refs.length === 0)
      throw new SpadeError("E_CONFIG", "name at least one environment", {
        nextStep: "e.g. spade eval env vault-cracker --policy random",
      });
    const policy = policyFromFlags(args);
    const seen = new Set<string>();
    const tasks: EvalTask[] = refs.map((ref) => {
      const program = openableProgram(ref, args.sandbox);
      let id = isOpenEnvRef(ref)
        ? parseOpenEnvRef(ref).name
        : (program.name ?? ref.replace(/^.*\//, "").replace(/\.js$/, ""));
      for (let i = 2; seen.has(id); i++) id = `${id.replace(/-\d+$/, "")}-${i}`;
      seen.add(id);
      return { id, group: id, open: program.open };
    });
    await withEvalInterrupt(
      (signal) =>
        runEvalCommand({
          benchmark: "env",
          flags: args,
          policy,
          tasks,
          signal,
          settings: { envs: refs },
        }),
      policy.outage,
    );
  },
});
