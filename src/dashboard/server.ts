/**
 * @module dashboard/server
 * `spade dashboard`'s web server (node:http): the pages, the static files (uPlot, highlight.js'
 * style, the page script, all from the package, no CDN), the Play API and a server-sent events
 * stream that tells open pages when a run's store changed. It only ever reads the stores.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Env } from "../env/index.js";
import { SpadeError } from "../errors.js";
import { STORE_FILE } from "../store/index.js";
import { html, type SafeHtml } from "./html.js";
import { LiveFeed } from "./live.js";
import * as pages from "./pages.js";
import { PlaySessions, type PlayView } from "./play-sessions.js";
import * as read from "./queries.js";
import { runSeries } from "./series.js";

/** How the dashboard finds and opens things; the outside world is injected. */
export interface DashboardOptions {
  /** Run folders, or folders holding run folders (searched one level down). */
  roots: string[];
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** When set, every request must carry it (`?token=` once, then a cookie). */
  token: string | null;
  /** How often stores are checked for changes, in ms. */
  pollMs: number;
  /** Opens a program in the sandbox (Play). */
  openProgram: (source: string, hint: string | null) => Promise<Env>;
  /** The library's environment names and sources (Play). */
  library: { names: () => string[]; source: (name: string) => string };
}

/** A started dashboard. */
export interface Dashboard {
  url: string;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const STATIC_DIR = fileURLToPath(new URL("../../src/dashboard/static/", import.meta.url));
const STATIC: Record<string, { path: () => string; type: string }> = {
  "uPlot.iife.min.js": {
    path: () => require.resolve("uplot/dist/uPlot.iife.min.js"),
    type: "text/javascript",
  },
  "uPlot.min.css": { path: () => require.resolve("uplot/dist/uPlot.min.css"), type: "text/css" },
  "highlight.css": {
    path: () => require.resolve("highlight.js/styles/github.css"),
    type: "text/css",
  },
  "app.js": { path: () => join(STATIC_DIR, "app.js"), type: "text/javascript" },
  "app.css": { path: () => join(STATIC_DIR, "app.css"), type: "text/css" },
};

/** True for names that reach only this machine. */
export function isLoopback(host: string): boolean {
  return (
    host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

/** The run folders under `roots`: a root holding a store is a run, else its sub-folders holding one are; a root with neither is kept so its error shows. */
export function discoverRuns(roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const root of roots) {
    const dir = resolve(root);
    if (existsSync(join(dir, STORE_FILE))) {
      out.push(dir);
      continue;
    }
    let children: string[] = [];
    try {
      children = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, STORE_FILE)))
        .map((d) => join(dir, d.name))
        .sort();
    } catch {
      // Not a folder, or unreadable: listed as is, so the page shows its E_NOT_FOUND.
    }
    out.push(...(children.length ? children : [dir]));
  }
  return [...new Set(out)];
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function statusOf(code: string): number {
  return code === "E_NOT_FOUND"
    ? 404
    : code === "E_CONFIG"
      ? 400
      : code === "E_RUN_LOCKED"
        ? 503
        : 500;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!String(req.headers["content-type"] ?? "").startsWith("application/json"))
    throw new HttpError(415, "send JSON (Content-Type: application/json)");
  let text = "";
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 65_536) throw new HttpError(413, "request too large");
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // falls through
  }
  throw new HttpError(400, "the body must be a JSON object");
}

const optionalNumber = (v: string | null): number | undefined =>
  v === null || v.trim() === "" || !Number.isFinite(Number(v)) ? undefined : Number(v);
const optionalString = (v: string | null): string | undefined =>
  v === null || v === "" ? undefined : v;

/** Starts the dashboard; resolves once it listens. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const ids = new Map<string, string>(); // dir -> id, stable for the server's life
  const runDirs = () =>
    discoverRuns(options.roots).map((dir) => {
      if (!ids.has(dir)) ids.set(dir, `r${ids.size}`);
      return { id: ids.get(dir) as string, dir };
    });
  const entry = (r: { id: string; dir: string }): pages.RunEntry => {
    try {
      return { ...r, summary: read.runSummary(r.dir), error: null };
    } catch (err) {
      return { ...r, summary: null, error: pages.pageError(err) };
    }
  };
  const findRun = (id: string): pages.RunEntry => {
    const r = runDirs().find((x) => x.id === id);
    if (!r)
      throw new SpadeError("E_NOT_FOUND", `no run ${id} on this dashboard`, {
        nextStep: "open the Runs page and choose one",
      });
    return entry(r);
  };
  const sessions = new PlaySessions();
  const live = new LiveFeed(runDirs, options.pollMs);

  function send(res: ServerResponse, status: number, type: string, text: string | Buffer): void {
    res.writeHead(status, {
      "content-type": type,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'",
    });
    res.end(text);
  }
  function page(
    res: ServerResponse,
    url: URL,
    status: number,
    title: string,
    content: SafeHtml,
    layout: { run?: pages.RunEntry; live?: string },
  ): void {
    const fragment = url.searchParams.get("fragment") === "1";
    send(
      res,
      status,
      "text/html; charset=utf-8",
      fragment ? content.text : pages.layout(title, content, layout),
    );
  }
  /** A page of one run; a run that cannot be read shows its coded error instead. */
  function runPage(
    res: ServerResponse,
    url: URL,
    id: string,
    title: string,
    render: (run: pages.RunEntry) => SafeHtml,
  ): void {
    let run: pages.RunEntry;
    try {
      run = findRun(id);
    } catch (err) {
      const e = pages.pageError(err);
      page(res, url, statusOf(e.code), title, pages.errorBox(e), { live: id });
      return;
    }
    if (run.error) {
      page(res, url, statusOf(run.error.code), title, pages.errorBox(run.error), { run, live: id });
      return;
    }
    try {
      page(res, url, 200, `${title}: ${run.summary?.name ?? id}`, render(run), { run, live: id });
    } catch (err) {
      const e = pages.pageError(err);
      page(res, url, statusOf(e.code), title, pages.errorBox(e), { run, live: id });
    }
  }

  function playSource(value: string): { open: () => Promise<Env> } {
    const [kind, a, b] = value.split(":");
    if (kind === "lib" && a && options.library.names().includes(a))
      return { open: () => options.openProgram(options.library.source(a), null) };
    if (kind === "run" && a && b) {
      const run = findRun(a);
      const program = read.environmentProgram(run.dir, b);
      if (program) return { open: () => options.openProgram(program.code, program.hint) };
    }
    throw new SpadeError("E_NOT_FOUND", `no environment ${value}`, {
      nextStep: "choose one from the list",
    });
  }
  function playChoices(): Array<{ value: string; label: string }> {
    const out = options.library.names().map((n) => ({ value: `lib:${n}`, label: `library: ${n}` }));
    for (const r of runDirs()) {
      try {
        for (const e of read.archive(r.dir))
          if (e.source === "designer")
            out.push({ value: `run:${r.id}:${e.id}`, label: `${r.id} ${e.id}: ${e.name}` });
      } catch {
        // An unreadable run offers nothing to play; the Runs page says why.
      }
    }
    return out;
  }

  async function api(req: IncomingMessage, res: ServerResponse, action: string): Promise<void> {
    if (req.method !== "POST") throw new HttpError(405, "use POST");
    const b = await body(req);
    const session = String(b.session ?? "");
    let view: PlayView;
    if (action === "start") {
      const seed = Number(b.seed ?? 0);
      if (!Number.isSafeInteger(seed) || seed < 0)
        throw new SpadeError(
          "E_CONFIG",
          `seed must be an integer >= 0 (got ${JSON.stringify(b.seed)})`,
        );
      view = await sessions.start(playSource(String(b.source ?? "")).open, seed);
    } else if (action === "reply") view = await sessions.reply(session, String(b.text ?? ""));
    else if (action === "hint") view = await sessions.hint(session);
    else if (action === "oracle") view = await sessions.oracle(session);
    else throw new HttpError(404, `no API ${action}`);
    send(res, 200, "application/json", JSON.stringify(view));
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://dashboard");
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    if (parts[0] === "static" && parts.length === 2) {
      const file = STATIC[parts[1] as string];
      if (!file) throw new HttpError(404, "no such file");
      return send(res, 200, file.type, readFileSync(file.path()));
    }
    if (parts[0] === "events") return live.subscribe(req, res);
    if (parts[0] === "api" && parts[1] === "play" && parts[2]) return api(req, res, parts[2]);
    if (req.method !== "GET") throw new HttpError(405, "pages are read with GET");
    const p = url.searchParams;
    if (parts.length === 0)
      return page(res, url, 200, "Runs", pages.runsPage(runDirs().map(entry)), { live: "*" });
    if (parts[0] === "compare") {
      const runs = p
        .getAll("run")
        .map((id) => findRun(id))
        .filter((r) => !r.error);
      if (runs.length === 0)
        return page(
          res,
          url,
          400,
          "Overlay",
          pages.errorBox({
            code: "E_CONFIG",
            message: "tick at least one readable run on the Runs page",
          }),
          { live: "*" },
        );
      return page(
        res,
        url,
        200,
        `Overlay: ${runs.map((r) => r.summary?.name).join(" vs ")}`,
        pages.overviewPage(runs.map((run) => ({ run, series: runSeries(run.dir) }))),
        { live: "*" },
      );
    }
    if (parts[0] === "play") {
      const selected = p.get("lib")
        ? `lib:${p.get("lib")}`
        : p.get("run") && p.get("env")
          ? `run:${p.get("run")}:${p.get("env")}`
          : undefined;
      return page(res, url, 200, "Play", pages.playPage(playChoices(), selected), {});
    }
    if (parts[0] === "run" && parts[1]) {
      const id = parts[1];
      const view = parts[2] ?? "";
      if (view === "")
        return runPage(res, url, id, "Overview", (run) =>
          pages.overviewPage([{ run, series: runSeries(run.dir) }]),
        );
      if (view === "archive") {
        const validity =
          p.get("validity") === "valid" || p.get("validity") === "invalid"
            ? (p.get("validity") as "valid" | "invalid")
            : undefined;
        const filter = {
          skill: optionalString(p.get("skill")),
          validity,
          regretMin: optionalNumber(p.get("regretMin")),
          regretMax: optionalNumber(p.get("regretMax")),
        };
        // A regret band selects measured environments: slots without one have no regret.
        const banded = filter.regretMin !== undefined || filter.regretMax !== undefined;
        return runPage(res, url, id, "Archive", (run) =>
          pages.archivePage(
            run,
            read.archive(run.dir, filter),
            validity === "valid" || banded ? [] : read.lostSlots(run.dir, filter),
            [...new Set(read.archive(run.dir).map((e) => e.skill))].sort(),
            filter,
          ),
        );
      }
      if (view === "env" && parts[3]) {
        const envId = parts[3];
        return runPage(res, url, id, "Environment", (run) => {
          const detail = read.environmentDetail(run.dir, envId);
          if (!detail)
            throw new SpadeError("E_NOT_FOUND", `no environment ${envId} in this run`, {
              nextStep: "open one from the archive",
            });
          return html`<h2>${detail.name} (${detail.id})</h2>${pages.environmentPage(run, detail)}`;
        });
      }
      if (view === "designs") {
        const filter = {
          outcome: optionalString(p.get("outcome")),
          code: optionalString(p.get("code")),
          skill: optionalString(p.get("skill")),
        };
        return runPage(res, url, id, "Design attempts", (run) => {
          const all = read.designAttempts(run.dir);
          return pages.attemptsPage(run, read.designAttempts(run.dir, filter), all, filter);
        });
      }
      if (view === "episodes") {
        const filter = {
          step: optionalNumber(p.get("step")),
          envId: optionalString(p.get("env")),
          limit: 200,
          offset: optionalNumber(p.get("offset")) ?? 0,
        };
        return runPage(res, url, id, "Episodes", (run) =>
          pages.episodesPage(run, read.episodeList(run.dir, filter), filter),
        );
      }
      if (view === "episode") {
        const step = optionalNumber(p.get("step"));
        const seed = optionalNumber(p.get("seed"));
        const envId = optionalString(p.get("env"));
        return runPage(res, url, id, "Episode", (run) => {
          if (step === undefined || seed === undefined || envId === undefined)
            throw new SpadeError("E_CONFIG", "an episode is named by step, env and seed", {
              nextStep: "open one from the Episodes list",
            });
          return pages.episodePairPage(read.episodePair(run.dir, step, envId, seed));
        });
      }
    }
    throw new HttpError(404, `no page ${url.pathname}`);
  }

  /** The token check: `?token=` sets a cookie; later requests carry the cookie. */
  function authorized(req: IncomingMessage, res: ServerResponse): boolean {
    if (options.token === null) {
      // Loopback only: refuse other Host names, so a web page elsewhere cannot rebind its name onto this port.
      const hostHeader = String(req.headers.host ?? "").replace(/:\d+$/, "");
      return isLoopback(hostHeader);
    }
    const url = new URL(req.url ?? "/", "http://dashboard");
    const cookie = /(?:^|;\s*)spade_token=([^;]+)/.exec(String(req.headers.cookie ?? ""))?.[1];
    if (cookie === options.token) return true;
    if (url.searchParams.get("token") === options.token) {
      res.setHeader(
        "set-cookie",
        `spade_token=${options.token}; HttpOnly; SameSite=Strict; Path=/`,
      );
      return true;
    }
    return false;
  }

  const server: Server = createServer((req, res) => {
    if (!authorized(req, res))
      return send(
        res,
        401,
        "text/plain; charset=utf-8",
        "spade dashboard: open the address with the token that `spade dashboard` printed\n",
      );
    route(req, res).catch((err: unknown) => {
      if (res.headersSent) return res.end();
      if (err instanceof HttpError)
        return send(res, err.status, "text/plain; charset=utf-8", `${err.message}\n`);
      const e = pages.pageError(err);
      if ((req.url ?? "").startsWith("/api/"))
        return send(res, statusOf(e.code), "application/json", JSON.stringify({ error: e }));
      send(
        res,
        statusOf(e.code),
        "text/html; charset=utf-8",
        pages.layout("Error", pages.errorBox(e)),
      );
    });
  });

  await new Promise<void>((done, fail) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      live.close();
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
      await sessions.closeAll();
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections(); // browsers keep idle connections open; do not wait for them
      await closed;
    },
  };
}
