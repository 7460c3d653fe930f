/**
 * @module dashboard/server
 * `spade dashboard`'s web server (node:http): it routes a request to the static files, the
 * server-sent events stream that tells open pages when a run's store changed, the Play API or a
 * page, after the token check. It only ever reads the stores.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SpadeError } from "../errors.js";
import { type ConnectionLimits, createLimitedServer } from "../net/index.js";
import { authorized } from "./auth.js";
import { HttpError, send, sendError } from "./http.js";
import { LiveFeed } from "./live.js";
import { servePage } from "./page-routes.js";
import { type PlayOptions, playApi, playChoices } from "./play-api.js";
import { type PlayLimits, PlaySessions } from "./play-sessions.js";
import { RunCatalog } from "./runs.js";
import { staticFile } from "./static-files.js";

export { isLoopback } from "./auth.js";
export { discoverRuns } from "./runs.js";

/** How the dashboard finds and opens things; the outside world is injected. */
export interface DashboardOptions extends PlayOptions {
  /** Run folders, or folders holding run folders (searched one level down). */
  roots: string[];
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** When set, every request must carry it (`?token=` once, then a cookie). */
  token: string | null;
  /** How often stores are checked for changes, in ms. */
  pollMs: number;
  /** How many Play games stay open, and for how long; DEFAULT_PLAY_LIMITS where not given. */
  playLimits?: Partial<PlayLimits>;
  /** The clock Play's idle times are measured with, in ms. Default `Date.now`. */
  now?: () => number;
  /** Bounds on slow clients and connections, in all and per address (net/limits.ts `resolveLimits`). */
  connectionLimits?: Partial<ConnectionLimits>;
}

/** A started dashboard. */
export interface Dashboard {
  url: string;
  close(): Promise<void>;
}

/** Starts the dashboard; resolves once it listens. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const runs = new RunCatalog(options.roots);
  const sessions = new PlaySessions(options.playLimits, options.now);
  const stopReaper = sessions.startReaper();
  const live = new LiveFeed(() => runs.list(), options.pollMs);
  const play = { ...options, runs, sessions };
  const pageContext = { runs, playChoices: () => playChoices(play) };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://dashboard");
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    if (parts[0] === "static" && parts.length === 2) {
      const file = staticFile(parts[1] as string);
      return send(res, 200, file.type, file.bytes);
    }
    if (parts[0] === "events") return live.subscribe(req, res);
    if (parts[0] === "api" && parts[1] === "play" && parts[2])
      return playApi(play, req, res, parts[2]);
    if (req.method !== "GET") throw new HttpError(405, "pages are read with GET");
    return servePage(pageContext, res, url, parts);
  }

  const server: Server = createLimitedServer((req, res) => {
    // node:http passes targets such as `//[` on, and `new URL` throws on them: thrown in this
    // listener (the token check parses the URL), that would end the process.
    if (!URL.canParse(req.url ?? "/", "http://dashboard"))
      return send(res, 400, "text/plain; charset=utf-8", "the request target is not a URL\n");
    if (!authorized(req, res, options.token))
      return send(
        res,
        401,
        "text/plain; charset=utf-8",
        "spade dashboard: open the address with the token that `spade dashboard` printed\n",
      );
    route(req, res).catch((err: unknown) => sendError(req, res, err));
  }, options.connectionLimits);

  await new Promise<void>((done, fail) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      live.close();
      stopReaper();
      fail(
        new SpadeError(
          "E_CONFIG",
          `cannot listen on ${options.host}:${options.port} (${err.code ?? err.message})`,
          { cause: err, nextStep: "choose another --port or --host" },
        ),
      );
    });
    server.listen(options.port, options.host, () => done());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}/`,
    async close() {
      live.close();
      stopReaper();
      await sessions.closeAll();
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections(); // browsers keep idle connections open; do not wait for them
      await closed;
    },
  };
}
