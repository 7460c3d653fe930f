/**
 * @module serve/server
 * `spade serve`'s server, composed here: node:http for OpenEnv's HTTP routes (http.ts) and `ws` for
 * its WebSocket session protocol (ws.ts), every environment under its own path prefix (paths.ts),
 * each WebSocket or MCP session its own sandboxed instance (sessions.ts).
 */
import { randomInt, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { type ConnectionLimits, createLimitedServer, resolveLimits } from "../net/index.js";
import { loadProgram, type SandboxBackendName } from "../sandbox/index.js";
import type { CatalogEntry } from "./catalog.js";
import { httpHandler } from "./http.js";
import { EntryPaths } from "./paths.js";
import { SessionRegistry } from "./registry.js";
import type { SessionDeps } from "./session.js";
import { ServerSessions } from "./sessions.js";
import { webSockets } from "./ws.js";

/** Options of `startServer`. */
export interface ServeOptions {
  /** The environments to serve (names unique and URL-safe; see catalog.ts). */
  entries: readonly CatalogEntry[];
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 8000. */
  port?: number;
  /** Most concurrent sessions over all environments (WebSocket and MCP). Default 64. */
  maxSessions?: number;
  /** Sessions idle this long (seconds) are closed; null never. Default 600. */
  sessionTimeoutS?: number | null;
  /** Sandbox backend for the default opener. Default isolated-vm. */
  backend?: SandboxBackendName;
  /** Overrides of the outside world (tests inject openers, seeds, ids, clock). */
  deps?: Partial<SessionDeps> & { now?: () => number };
  /** Largest HTTP body or WebSocket message, in bytes. Default 4 MiB. */
  maxMessageBytes?: number;
  /**
   * Bounds on slow clients and connections (net/limits.ts `resolveLimits`). Sessions' WebSockets
   * come on top of both caps: the server holds `maxSessions + maxConnections`, and one address
   * `maxSessions + maxConnectionsPerAddress`, so that one trainer may use every session.
   */
  connectionLimits?: Partial<ConnectionLimits>;
}

/** A running server. */
export interface ServeHandle {
  /** `http://host:port`. */
  url: string;
  port: number;
  registry: SessionRegistry;
  /** Stops listening, closes every socket and session. */
  close(): Promise<void>;
}

/** Default `--max-sessions`. */
export const DEFAULT_MAX_SESSIONS = 64;
/** Default `--session-timeout`, seconds. */
export const DEFAULT_SESSION_TIMEOUT_S = 600;

/** Starts serving; resolves once listening. */
export async function startServer(options: ServeOptions): Promise<ServeHandle> {
  const sessions = serverSessions(options);
  const paths = new EntryPaths(options.entries);
  const maxBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const limits = resolveLimits(options.connectionLimits);
  const maxSessions = sessions.registry.maxSessions;
  const server = createLimitedServer(httpHandler({ sessions, paths, maxBytes }), {
    ...limits,
    maxConnections: maxSessions + limits.maxConnections,
    maxConnectionsPerAddress: maxSessions + limits.maxConnectionsPerAddress,
  });
  const sockets = webSockets(sessions, paths, maxBytes);
  server.on("upgrade", (req, socket, head) => sockets.upgrade(req, socket, head));
  const stopReaper = sessions.startReaper();

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8000, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    registry: sessions.registry,
    async close() {
      stopReaper();
      sockets.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await sessions.registry.closeAll();
    },
  };
}

/** The options' sessions: the default outside world (sandbox, seeds, ids, clock) where none is injected. */
function serverSessions(options: ServeOptions): ServerSessions {
  const backend = options.backend ?? "isolated-vm";
  const deps: SessionDeps = {
    open: options.deps?.open ?? ((entry) => loadProgram(entry.source, { backend })),
    randomSeed: options.deps?.randomSeed ?? (() => randomInt(0, 2 ** 31 - 1)),
    newId: options.deps?.newId ?? (() => randomUUID()),
  };
  const now = options.deps?.now ?? (() => Date.now());
  const timeoutS =
    options.sessionTimeoutS === undefined ? DEFAULT_SESSION_TIMEOUT_S : options.sessionTimeoutS;
  const registry = new SessionRegistry(
    options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    timeoutS === null ? null : timeoutS * 1000,
    now,
  );
  return new ServerSessions(registry, deps, timeoutS);
}
