/**
 * @module cli/dashboard
 * `spade dashboard [DIR...]`: serves the local web dashboard over run folders until interrupted.
 * Loopback by default; a non-loopback --host needs the printed token on every request.
 */
import { randomBytes } from "node:crypto";
import { defineCommand } from "citty";
import { DEFAULT_PLAY_LIMITS, isLoopback, startDashboard } from "../dashboard/index.js";
import { withFixedHint } from "../designer/index.js";
import { libraryNames, libraryPath, readProgramFile } from "../envs/index.js";
import { loadProgram } from "../sandbox/index.js";
import { intFlag, sandboxArg, sandboxFlag } from "./common.js";
import { connectionArgs, connectionLimitsOf } from "./connection-flags.js";

/** `spade dashboard` */
export const dashboardCommand = defineCommand({
  meta: {
    name: "dashboard",
    description:
      "Serve a local web dashboard over run folders (read-only; running runs update live)",
  },
  args: {
    dirs: {
      type: "positional",
      description: "run folders, or folders holding run folders (default: runs)",
      required: false,
    },
    port: { type: "string", description: "port to listen on (0: any free port)", default: "8321" },
    host: {
      type: "string",
      description: "address to bind; a non-loopback one requires the printed token",
      default: "127.0.0.1",
    },
    poll: {
      type: "string",
      description: "how often stores are checked for changes, in ms",
      default: "1000",
    },
    "max-sessions": {
      type: "string",
      description:
        "most Play games open at once; past it a start replaces one idle 5 minutes or is refused",
      default: String(DEFAULT_PLAY_LIMITS.maxSessions),
    },
    "session-timeout": {
      type: "string",
      description: "close Play games idle this many seconds (0: never)",
      default: String((DEFAULT_PLAY_LIMITS.idleTimeoutMs ?? 0) / 1000),
    },
    ...connectionArgs("dashboard"),
    sandbox: sandboxArg,
  },
  async run({ args }) {
    const roots = args._.length ? args._.map(String) : ["runs"];
    const port = intFlag("port", args.port, 0, 65535);
    const pollMs = intFlag("poll", args.poll, 50, 3_600_000);
    const maxSessions = intFlag("max-sessions", args["max-sessions"], 1, 10_000);
    const timeoutS = intFlag("session-timeout", args["session-timeout"], 0, 31_536_000);
    const connectionLimits = connectionLimitsOf("dashboard", args);
    const backend = sandboxFlag(args.sandbox);
    const host = String(args.host);
    const token = isLoopback(host) ? null : randomBytes(18).toString("base64url");
    const dashboard = await startDashboard({
      roots,
      host,
      port,
      token,
      pollMs,
      playLimits: { maxSessions, idleTimeoutMs: timeoutS === 0 ? null : timeoutS * 1000 },
      connectionLimits,
      openProgram: async (source, hint) => {
        const env = await loadProgram(source, { backend });
        return hint === null ? env : withFixedHint(env, hint);
      },
      library: { names: libraryNames, source: (name) => readProgramFile(libraryPath(name)) },
    });
    process.stdout.write(`dashboard: ${dashboard.url}${token ? `?token=${token}` : ""}\n`);
    if (token)
      process.stderr.write(
        `dashboard: listening on ${host}, reachable from other machines; only requests with the token above are served\n`,
      );
    await new Promise<void>((done) => {
      const stop = () => done();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    await dashboard.close();
  },
});
