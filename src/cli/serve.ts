/**
 * @module cli/serve
 * `spade serve [NAME|FILE|RUN_DIR ...]`: serves environments as OpenEnv environments (HTTP, WS
 * /ws, MCP) until interrupted. See docs/serving.md.
 */
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import { libraryNames } from "../envs/index.js";
import {
  catalogSources,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_TIMEOUT_S,
  loadCatalog,
  startServer,
} from "../serve/index.js";
import { intFlag, sandboxArg, sandboxFlag } from "./common.js";
import { connectionArgs, connectionLimitsOf } from "./connection-flags.js";
import { visibleText } from "./guest-text.js";

/** Parses a finite number flag, or throws E_CONFIG naming it. */
function numberFlag(name: string, value: unknown, min: number): number {
  const n = Number(value);
  if (typeof value !== "string" || value.trim() === "" || !Number.isFinite(n) || n < min) {
    throw new SpadeError(
      "E_CONFIG",
      `--${name} must be a number >= ${min} (got ${JSON.stringify(value)})`,
    );
  }
  return n;
}

/** `spade serve` */
export const serveCommand = defineCommand({
  meta: {
    name: "serve",
    description: "Serve environments over OpenEnv (HTTP, WebSocket /ws) and MCP until interrupted",
  },
  args: {
    envs: {
      type: "positional",
      description: "library names, program files or run folders (default: the whole library)",
      required: false,
    },
    port: {
      type: "string",
      description: "port to listen on (0 picks a free one)",
      default: "8000",
    },
    host: {
      type: "string",
      description: "interface to listen on (0.0.0.0 for every interface)",
      default: "127.0.0.1",
    },
    "max-sessions": {
      type: "string",
      description: "most concurrent sessions over all environments; more get CAPACITY_REACHED",
      default: String(DEFAULT_MAX_SESSIONS),
    },
    "session-timeout": {
      type: "string",
      description: "close sessions idle this many seconds (0: never)",
      default: String(DEFAULT_SESSION_TIMEOUT_S),
    },
    "min-regret": {
      type: "string",
      description: "from run folders, serve only environments with measured regret >= X",
    },
    skills: {
      type: "string",
      description: "from run folders, serve only these skills (comma-separated)",
    },
    ...connectionArgs("serve"),
    sandbox: sandboxArg,
  },
  async run({ args }) {
    const refs = (args._ as string[]).length > 0 ? (args._ as string[]) : libraryNames();
    const port = intFlag("port", args.port, 0, 65535);
    const maxSessions = intFlag("max-sessions", args["max-sessions"], 1, 100_000);
    const timeout = numberFlag("session-timeout", args["session-timeout"], 0);
    const connectionLimits = connectionLimitsOf("serve", args);
    const minRegret =
      args["min-regret"] === undefined ? null : numberFlag("min-regret", args["min-regret"], -1);
    const skills = args.skills
      ? String(args.skills)
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
    const backend = sandboxFlag(args.sandbox);
    const entries = await loadCatalog(catalogSources(refs, { minRegret, skills }), backend);
    const handle = await startServer({
      entries,
      host: args.host,
      port,
      maxSessions,
      sessionTimeoutS: timeout === 0 ? null : timeout,
      backend,
      connectionLimits,
    });
    process.stdout.write(
      `serving ${entries.length} environment${entries.length === 1 ? "" : "s"} at ${handle.url} (max ${maxSessions} sessions)\n`,
    );
    for (const e of entries)
      process.stdout.write(
        `  ${handle.url}/${e.name}  (${e.origin}, ${visibleText(e.meta.skill, { oneLine: true })})\n`,
      );
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    await handle.close();
    process.stdout.write("server stopped\n");
    // SIGTERM is how containers stop a server: a clean stop. SIGINT is an interruption (130).
    process.exitCode = signal === "SIGINT" ? 130 : 0;
  },
});
