/**
 * @module cli/commands
 * The `spade` command's tree: each sub-command's module is loaded when it is asked for. Apart
 * from cli/main (which runs it) so that tests can walk the tree without running a command.
 */
import { defineCommand } from "citty";
import { envCommand } from "./env.js";

/** The root command. */
export const main = defineCommand({
  meta: {
    name: "spade",
    version: "0.1.0",
    description: "Self-play in adaptive synthetic executable environments",
  },
  subCommands: {
    dashboard: () => import("./dashboard.js").then((m) => m.dashboardCommand),
    archive: () => import("./archive.js").then((m) => m.archiveCommand),
    env: envCommand,
    doctor: () => import("./doctor.js").then((m) => m.doctorCommand),
    eval: () => import("./eval.js").then((m) => m.evalCommand),
    run: () => import("./run.js").then((m) => m.runCommand),
    runs: () => import("./runs.js").then((m) => m.runsCommand),
    data: () => import("./data.js").then((m) => m.dataCommand),
    serve: () => import("./serve.js").then((m) => m.serveCommand),
  },
});
