/**
 * @module dashboard/play-api
 * Play from the browser: the environments on offer (the library's, and every run's designed
 * ones) and `POST /api/play/{start,reply,hint,oracle,close}`, which drive a PlaySessions.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Env } from "../env/index.js";
import { SpadeError } from "../errors.js";
import { HttpError, readJsonBody, send } from "./http.js";
import { PlayCapacityError, type PlaySessions, type PlayView } from "./play-sessions.js";
import * as read from "./queries.js";
import type { RunCatalog } from "./runs.js";
import { readWhenUnlocked } from "./store-read.js";

/** How Play opens environments (part of `DashboardOptions`). */
export interface PlayOptions {
  /** Opens a program in the sandbox (Play). */
  openProgram: (source: string, hint: string | null) => Promise<Env>;
  /** The library's environment names and sources (Play). */
  library: { names: () => string[]; source: (name: string) => string };
}

/** What Play reads and opens: the dashboard's runs, its open sessions and how to open more. */
export interface PlayContext extends PlayOptions {
  runs: RunCatalog;
  sessions: PlaySessions;
}

/**
 * The environment a Play source names (`lib:NAME` or `run:RUN:ENV`), to open; E_NOT_FOUND for any
 * other. A run's store locked by another process is read again until let go or the wait is over.
 */
async function playSource(ctx: PlayContext, value: string): Promise<{ open: () => Promise<Env> }> {
  const [kind, a, b] = value.split(":");
  if (kind === "lib" && a && ctx.library.names().includes(a))
    return { open: () => ctx.openProgram(ctx.library.source(a), null) };
  if (kind === "run" && a && b) {
    const run = await ctx.runs.find(a);
    const program = await readWhenUnlocked(() => read.environmentProgram(run.dir, b));
    if (program) return { open: () => ctx.openProgram(program.code, program.hint) };
  }
  throw new SpadeError("E_NOT_FOUND", `no environment ${value}`, {
    nextStep: "choose one from the list",
  });
}

/**
 * The Play page's choices: the library's environments, then every readable run's designed ones
 * (a locked store read again as `playSource` does).
 */
export async function playChoices(
  ctx: PlayContext,
): Promise<Array<{ value: string; label: string }>> {
  const out = ctx.library.names().map((n) => ({ value: `lib:${n}`, label: `library: ${n}` }));
  const byRun = await Promise.all(
    ctx.runs.list().map(async (r) => {
      try {
        return (await readWhenUnlocked(() => read.archive(r.dir)))
          .filter((e) => e.source === "designer")
          .map((e) => ({ value: `run:${r.id}:${e.id}`, label: `${r.id} ${e.id}: ${e.name}` }));
      } catch {
        return []; // An unreadable run offers nothing to play; the Runs page says why.
      }
    }),
  );
  return [...out, ...byRun.flat()];
}

/**
 * Answers `POST /api/play/<action>` with the session's view as JSON (`close`: whether it was
 * open). A refused start is 503 E_CAPACITY with `Retry-After`.
 */
export async function playApi(
  ctx: PlayContext,
  req: IncomingMessage,
  res: ServerResponse,
  action: string,
): Promise<void> {
  if (req.method !== "POST") throw new HttpError(405, "use POST");
  const b = await readJsonBody(req);
  const session = String(b.session ?? "");
  let view: PlayView;
  if (action === "start") {
    const seed = Number(b.seed ?? 0);
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new SpadeError(
        "E_CONFIG",
        `seed must be an integer >= 0 (got ${JSON.stringify(b.seed)})`,
      );
    const replace = typeof b.replace === "string" ? b.replace : undefined;
    try {
      const source = await playSource(ctx, String(b.source ?? ""));
      view = await ctx.sessions.start(source.open, seed, replace);
    } catch (err) {
      // Kept by the error answer's writeHead, which merges headers set before it.
      if (err instanceof PlayCapacityError) res.setHeader("retry-after", String(err.retryAfterS));
      throw err;
    }
  } else if (action === "close") {
    const closed = await ctx.sessions.close(session);
    return send(res, 200, "application/json", JSON.stringify({ session, closed }));
  } else if (action === "reply") view = await ctx.sessions.reply(session, String(b.text ?? ""));
  else if (action === "hint") view = await ctx.sessions.hint(session);
  else if (action === "oracle") view = await ctx.sessions.oracle(session);
  else throw new HttpError(404, `no API ${action}`);
  send(res, 200, "application/json", JSON.stringify(view));
}
