/**
 * @module cli/eval-bfcl
 * `spade eval bfcl-replay --category C`: replays BFCL multi-turn ground truth through the
 * TypeScript port and compares with upstream's golden file (exit 0 all match, 1 some mismatch,
 * 2 usage or I/O error).
 */
import { defineCommand } from "citty";
import { isSpadeError, SpadeError } from "../errors.js";
import {
  BFCL_CATEGORIES,
  replayCategory,
  resolveBfclDataDir,
  type BfclCategory,
} from "../eval/bfcl/index.js";
import { jsonArg, printJson, dataArg } from "./common.js";

/** Mismatches listed in the human summary at most. */
const SHOWN_MISMATCHES = 10;

/** Error codes that mean the user asked for something unusable (exit 2). */
const USAGE_CODES = new Set(["E_CONFIG", "E_IO", "E_NOT_FOUND", "E_PARSE"]);

/** `spade eval bfcl-replay --category base|miss_func|miss_param|long_context [--golden FILE] [--json] [--data DIR]`. */
export const bfclReplayCommand = defineCommand({
  meta: {
    name: "bfcl-replay",
    description:
      "Replay BFCL multi-turn ground truth through the port and compare with upstream's golden file " +
      "(without one, check the ground truth against itself); exit 0 when all entries match",
  },
  args: {
    category: { type: "string", description: BFCL_CATEGORIES.join(" | "), required: true },
    golden: {
      type: "string",
      description:
        "golden replay file (default <data>/golden/BFCL_v4_multi_turn_<category>.replay.jsonl)",
    },
    json: jsonArg,
    data: dataArg("BFCL folder or the data folder holding bfcl/"),
  },
  run({ args }) {
    try {
      const category = String(args.category);
      if (!(BFCL_CATEGORIES as readonly string[]).includes(category)) {
        throw new SpadeError("E_CONFIG", `unknown --category "${category}"`, {
          nextStep: `one of ${BFCL_CATEGORIES.join(", ")}`,
        });
      }
      const dataDir = resolveBfclDataDir({ flag: args.data, env: process.env, cwd: process.cwd() });
      const report = replayCategory(dataDir, category as BfclCategory, { goldenFile: args.golden });
      if (args.json) {
        printJson({
          entries: report.entries,
          matched: report.matched,
          mismatches: report.mismatches,
        });
      } else {
        const against =
          report.mode === "golden"
            ? "match the golden file"
            : "pass the checker against themselves (no golden file)";
        process.stdout.write(
          `${category}: ${report.matched}/${report.entries} entries ${against}\n`,
        );
        for (const m of report.mismatches.slice(0, SHOWN_MISMATCHES))
          process.stdout.write(`  ${m.id} turn ${m.turn}: ${m.what}\n`);
        if (report.mismatches.length > SHOWN_MISMATCHES) {
          process.stdout.write(
            `  ... ${report.mismatches.length - SHOWN_MISMATCHES} more (use --json)\n`,
          );
        }
      }
      process.exitCode = report.matched === report.entries ? 0 : 1;
    } catch (err) {
      if (isSpadeError(err) && USAGE_CODES.has(err.code)) {
        process.stderr.write(`spade: ${err.code}: ${err.message}\n`);
        process.exitCode = 2;
        return;
      }
      throw err;
    }
  },
});
