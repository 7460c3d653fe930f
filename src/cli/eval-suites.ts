/**
 * @module cli/eval-suites
 * `spade eval gold SUITE`: the graders' self-check on a held-out suite (every reference, answered
 * as a model would, must score 1). Exit 0 when all are correct, 1 otherwise, 2 usage or I/O error.
 */
import { defineCommand } from "citty";
import { dataRoot } from "../eval/index.js";
import { SpadeError } from "../errors.js";
import {
  goldCheck,
  isCodeSuite,
  isSuiteName,
  loadSuite,
  perturbationCheck,
  SUITE_NAMES,
} from "../eval/suites/index.js";
import {
  codeSandboxOptions,
  codeSuiteArgs,
  intFlag,
  jsonArg,
  printJson,
  dataArg,
} from "./common.js";

/** Failures listed on stderr at most. */
const SHOWN_FAILURES = 10;

/** `spade eval gold SUITE [--json] [--limit N] [--data DIR]`. */
export const goldCommand = defineCommand({
  meta: {
    name: "gold",
    description: `Grade every reference answer of a suite as if a model wrote it (${SUITE_NAMES.join(", ")}, rg); exit 0 when all score 1`,
  },
  args: {
    suite: { type: "positional", description: `${SUITE_NAMES.join(" | ")} | rg`, required: true },
    json: jsonArg,
    limit: { type: "string", description: "only the first N items" },
    data: dataArg(),
    concurrency: {
      type: "string",
      description: "code suites: Python processes at once (default min(4, CPUs))",
    },
    ...codeSuiteArgs,
    perturb: {
      type: "boolean",
      description: "math suites: also check that perturbed references score 0 (rg: always)",
      default: false,
    },
    datasets: { type: "string", description: "rg: only these datasets, comma-separated" },
    workers: { type: "string", description: "rg: worker processes (default 4)" },
  },
  async run({ args }) {
    const suite = String(args.suite);
    if (suite === "rg") {
      const { runRgGold } = await import("./eval-rg.js");
      await runRgGold({ ...args, perturb: true });
      return;
    }
    if (!isSuiteName(suite)) {
      throw new SpadeError("E_CONFIG", `unknown suite "${suite}"`, {
        nextStep: `one of ${SUITE_NAMES.join(", ")}`,
      });
    }
    const limit = args.limit === undefined ? undefined : intFlag("limit", args.limit, 1);
    const dataDir = dataRoot({ flag: args.data, env: process.env });
    const sandbox = codeSandboxOptions(args);
    if (args.concurrency !== undefined)
      sandbox.maxConcurrency = intFlag("concurrency", args.concurrency, 1);
    if (args.perturb && (isCodeSuite(suite) || suite === "bbh")) {
      throw new SpadeError(
        "E_CONFIG",
        "--perturb applies to the math suites (gsm8k, math500) only",
      );
    }

    const report = await goldCheck(suite, { limit, dataDir, sandbox });
    if (!args.json) {
      process.stdout.write(
        `${report.suite}: ${report.correct}/${report.items} correct (${(report.durationMs / 1000).toFixed(1)} s)\n`,
      );
    }
    let accepted = 0;
    let perturbations: unknown;
    if (args.perturb) {
      const check = await perturbationCheck(await loadSuite(suite, { limit, dataDir }));
      accepted = check.byKind.reduce((n, k) => n + k.accepted.length, 0);
      perturbations = check.byKind.map((k) => ({
        kind: k.kind,
        applicable: k.applicable,
        scoredZero: k.scoredZero,
        accepted: k.accepted,
      }));
      if (!args.json) {
        for (const k of check.byKind)
          process.stdout.write(
            `  perturbation ${k.kind}: ${k.scoredZero}/${k.applicable} scored 0\n`,
          );
        if (check.unperturbable.length > 0)
          process.stdout.write(`  not perturbable: ${check.unperturbable.join(", ")}\n`);
      }
    }
    if (args.json) {
      printJson({
        suite: report.suite,
        items: report.items,
        correct: report.correct,
        ...(args.perturb ? { perturbations } : {}),
      });
    }
    for (const f of report.failures.slice(0, SHOWN_FAILURES))
      process.stderr.write(`  FAIL ${f.id}: ${JSON.stringify(f.info)}\n`);
    if (report.failures.length > SHOWN_FAILURES)
      process.stderr.write(`  ... and ${report.failures.length - SHOWN_FAILURES} more\n`);
    process.exitCode = report.correct === report.items && accepted === 0 ? 0 : 1;
  },
});
