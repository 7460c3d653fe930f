/**
 * @module cli/eval
 * `spade eval ...`: held-out evaluation and the self-checks that prove the ports and graders
 * score like upstream. Sub-commands load lazily (each pulls in a whole benchmark port).
 */
import { defineCommand } from "citty";
import type { SuiteName } from "../eval/suites/index.js";

/** The lazily loaded `spade eval SUITE` command of one suite. */
const suiteCommand = (suite: SuiteName) => () =>
  import("./eval-run-suites.js").then((m) => m.suiteRunCommand(suite));

/** `spade eval ...` */
export const evalCommand = defineCommand({
  meta: { name: "eval", description: "Held-out evaluation suites and their self-checks" },
  subCommands: {
    "bfcl-replay": () => import("./eval-bfcl.js").then((m) => m.bfclReplayCommand),
    "acebench-replay": () => import("./eval-acebench.js").then((m) => m.acebenchReplayCommand),
    gold: () => import("./eval-suites.js").then((m) => m.goldCommand),
    gsm8k: suiteCommand("gsm8k"),
    math500: suiteCommand("math500"),
    humaneval: suiteCommand("humaneval"),
    mbpp: suiteCommand("mbpp"),
    bbh: suiteCommand("bbh"),
    bfcl: () => import("./eval-run-bfcl.js").then((m) => m.bfclRunCommand),
    acebench: () => import("./eval-run-acebench.js").then((m) => m.acebenchRunCommand),
    tau2: () => import("./eval-tau2.js").then((m) => m.tau2Command),
    rg: () => import("./eval-rg.js").then((m) => m.rgRunCommand),
    paper: () => import("./eval-paper.js").then((m) => m.paperCommand),
    env: () => import("./eval-env.js").then((m) => m.envEvalCommand),
  },
});
