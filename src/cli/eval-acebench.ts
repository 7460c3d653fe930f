/**
 * @module cli/eval-acebench
 * `spade eval acebench-replay`: replays every ACEBench agent entry's milestones through the
 * TypeScript port and compares each outcome with the reference replay summary. Exit 0 when all
 * agree, 1 otherwise, 2 on a usage or I/O error.
 */
import { existsSync } from "node:fs";
import { defineCommand } from "citty";
import { SpadeError, isSpadeError } from "../errors.js";
import { compareWithSummary, type Lang } from "../eval/acebench/index.js";
import { dataRoot, datasetDir } from "../eval/index.js";
import { jsonArg, printJson, dataArg } from "./common.js";

/** The acebench folder: DIR itself when it holds `data_all/`, else DIR/acebench. */
export function acebenchFolder(root: string): string {
  return datasetDir(root, "acebench", "data_all", existsSync);
}

/** `spade eval acebench-replay [--lang en|zh] [--json] [--data DIR]`. */
export const acebenchReplayCommand = defineCommand({
  meta: {
    name: "acebench-replay",
    description:
      "Replay ACEBench agent milestones through the port; exit 0 when every entry agrees with the reference summary",
  },
  args: {
    lang: { type: "string", description: "en | zh (default both)" },
    json: jsonArg,
    data: dataArg("data folder or its acebench folder"),
  },
  async run({ args }) {
    try {
      if (args.lang !== undefined && args.lang !== "en" && args.lang !== "zh") {
        throw new SpadeError(
          "E_CONFIG",
          `--lang must be en or zh (got ${JSON.stringify(args.lang)})`,
        );
      }
      const langs: Lang[] = args.lang === undefined ? ["en", "zh"] : [args.lang];
      const dir = acebenchFolder(dataRoot({ flag: args.data, env: process.env }));
      const result = compareWithSummary(dir, langs);
      if (args.json) printJson(result);
      else {
        process.stdout.write(
          `acebench-replay ${langs.join("+")}: ${result.matched}/${result.entries} entries agree with the reference summary\n`,
        );
        for (const m of result.mismatches) process.stdout.write(`  MISMATCH ${m.id}: ${m.what}\n`);
      }
      process.exitCode =
        result.mismatches.length === 0 && result.matched === result.entries ? 0 : 1;
    } catch (err) {
      if (!isSpadeError(err)) throw err;
      process.stderr.write(`spade: ${err.code}: ${err.message}\n`);
      process.exitCode = 2;
    }
  },
});
