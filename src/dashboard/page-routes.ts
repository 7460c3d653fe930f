/**
 * @module dashboard/page-routes
 * The pages, read with GET: which page a path and its query name, and how each is answered (a
 * whole page, or with `?fragment=1` only its content; a run that cannot be read shows its error).
 */
import type { ServerResponse } from "node:http";
import { SpadeError } from "../errors.js";
import { html, type SafeHtml } from "./html.js";
import { HttpError, LOCKED_RETRY_AFTER_S, send, statusOf, statusOfError } from "./http.js";
import * as pages from "./pages.js";
import * as read from "./queries.js";
import type { RunCatalog } from "./runs.js";
import { type RunSeries, runSeries } from "./series.js";
import { readWhenUnlocked, whileLocked } from "./store-read.js";

/** What the pages read. */
export interface PageContext {
  runs: RunCatalog;
  /** The environments the Play page offers. */
  playChoices: () => Promise<Array<{ value: string; label: string }>>;
}

const optionalNumber = (v: string | null): number | undefined =>
  v === null || v.trim() === "" || !Number.isFinite(Number(v)) ? undefined : Number(v);
const optionalString = (v: string | null): string | undefined =>
  v === null || v === "" ? undefined : v;

/** A page to answer: its status, title, content, and what its layout shows around it. */
interface Page {
  status: number;
  title: string;
  content: SafeHtml;
  layout: { run?: pages.RunEntry; live?: string };
}

/**
 * A page of one run; a run that cannot be read shows its coded error instead. A store locked by
 * another process is read again until let go or the wait is over (`whileLocked`).
 */
async function runPage(
  runs: RunCatalog,
  id: string,
  title: string,
  render: (run: pages.RunEntry) => SafeHtml,
): Promise<Page> {
  let found: pages.RunEntry;
  try {
    found = await runs.find(id);
  } catch (err) {
    const e = pages.pageError(err);
    return { status: statusOfError(err), title, content: pages.errorBox(e), layout: { live: id } };
  }
  const run = found; // a const: the attempts below close over it
  const layout = { run, live: id };
  // A run's error is its store's: it was read for the run's summary.
  if (run.error) {
    const status = statusOf(run.error.code, "store");
    return { status, title, content: pages.errorBox(run.error), layout };
  }
  const shown = await whileLocked(
    (): { page: Page; code: string | null } => {
      try {
        const content = render(run);
        const page = {
          status: 200,
          title: `${title}: ${run.summary?.name ?? id}`,
          content,
          layout,
        };
        return { page, code: null };
      } catch (err) {
        const e = pages.pageError(err);
        const page = { status: statusOfError(err), title, content: pages.errorBox(e), layout };
        return { page, code: e.code };
      }
    },
    (attempt) => attempt.code === "E_RUN_LOCKED",
  );
  return shown.page;
}

/**
 * Answers the page at `parts` (the path's decoded segments): whole, or with `?fragment=1` only
 * its content; a store still locked after the wait is 503 with `Retry-After`. HttpError 404 when
 * there is none.
 */
export async function servePage(
  ctx: PageContext,
  res: ServerResponse,
  url: URL,
  parts: readonly string[],
): Promise<void> {
  const shown = await pageAt(ctx, url, parts);
  if (!shown) throw new HttpError(404, `no page ${url.pathname}`);
  const fragment = url.searchParams.get("fragment") === "1";
  if (shown.status === 503) res.setHeader("retry-after", String(LOCKED_RETRY_AFTER_S));
  send(
    res,
    shown.status,
    "text/html; charset=utf-8",
    fragment ? shown.content.text : pages.layout(shown.title, shown.content, shown.layout),
  );
}

/** The page at `parts`; null when there is none. */
async function pageAt(ctx: PageContext, url: URL, parts: readonly string[]): Promise<Page | null> {
  const p = url.searchParams;
  if (parts.length === 0) {
    const entries = await Promise.all(ctx.runs.list().map((r) => ctx.runs.entry(r)));
    return { status: 200, title: "Runs", content: pages.runsPage(entries), layout: { live: "*" } };
  }
  if (parts[0] === "compare") {
    const ticked = await Promise.all(p.getAll("run").map((id) => ctx.runs.find(id)));
    const runs = ticked.filter((r) => !r.error);
    const unreadable = ticked.flatMap((r) => (r.error ? [r.error] : []));
    // None ticked is the request's fault; every ticked run unreadable (damaged, locked since the
    // Runs page showed it) is their stores'.
    if (runs.length === 0)
      return {
        status: unreadable[0] ? statusOf(unreadable[0].code, "store") : 400,
        title: "Overlay",
        content: unreadable[0]
          ? html`${unreadable.map((e) => pages.errorBox(e))}`
          : pages.errorBox({
              code: "E_CONFIG",
              message: "tick at least one readable run on the Runs page",
            }),
        layout: { live: "*" },
      };
    const series = await Promise.all(runs.map((run) => readWhenUnlocked(() => runSeries(run.dir))));
    return {
      status: 200,
      title: `Overlay: ${runs.map((r) => r.summary?.name).join(" vs ")}`,
      content: pages.overviewPage(runs.map((run, i) => ({ run, series: series[i] as RunSeries }))),
      layout: { live: "*" },
    };
  }
  if (parts[0] === "play") {
    const selected = p.get("lib")
      ? `lib:${p.get("lib")}`
      : p.get("run") && p.get("env")
        ? `run:${p.get("run")}:${p.get("env")}`
        : undefined;
    return {
      status: 200,
      title: "Play",
      content: pages.playPage(await ctx.playChoices(), selected),
      layout: {},
    };
  }
  if (parts[0] === "run" && parts[1]) return runView(ctx.runs, p, parts);
  return null;
}

/** The page of `/run/<id>/<view>...`; null when `view` names none. */
function runView(
  runs: RunCatalog,
  p: URLSearchParams,
  parts: readonly string[],
): Promise<Page> | null {
  const id = parts[1] as string;
  const view = parts[2] ?? "";
  if (view === "")
    return runPage(runs, id, "Overview", (run) =>
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
    return runPage(runs, id, "Archive", (run) =>
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
    return runPage(runs, id, "Environment", (run) => {
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
    return runPage(runs, id, "Design attempts", (run) => {
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
    return runPage(runs, id, "Episodes", (run) =>
      pages.episodesPage(run, read.episodeList(run.dir, filter), filter),
    );
  }
  if (view === "episode") {
    const step = optionalNumber(p.get("step"));
    const seed = optionalNumber(p.get("seed"));
    const envId = optionalString(p.get("env"));
    return runPage(runs, id, "Episode", (run) => {
      if (step === undefined || seed === undefined || envId === undefined)
        throw new SpadeError("E_CONFIG", "an episode is named by step, env and seed", {
          nextStep: "open one from the Episodes list",
        });
      return pages.episodePairPage(read.episodePair(run.dir, step, envId, seed));
    });
  }
  return null;
}
