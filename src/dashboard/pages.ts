/**
 * @module dashboard/pages
 * The dashboard's pages as HTML, rendered on the server with `html` (every value escaped). Charts
 * and live updates are drawn in the browser by static/app.js from JSON embedded in the page.
 */
import { createRequire } from "node:module";
import { detectProgramLanguage, type Json } from "../env/index.js";
import { isSpadeError } from "../errors.js";
import { html, jsonScript, raw, type SafeHtml } from "./html.js";
import type {
  ArchiveEntry,
  ArchiveFilter,
  AttemptEntry,
  LostSlot,
  AttemptFilter,
  EnvironmentDetail,
  EpisodeDetail,
  EpisodeEntry,
  RunSummary,
} from "./queries.js";
import type { RunSeries } from "./series.js";
import { failureCodesByStep } from "./queries.js";

// highlight.js is loaded untyped: its type declarations pull the DOM library into the whole build.
interface Highlighter {
  registerLanguage(name: string, language: unknown): void;
  highlight(code: string, options: { language: string }): { value: string };
}
const require = createRequire(import.meta.url);
const hljs = require("highlight.js/lib/core") as Highlighter;
hljs.registerLanguage("javascript", require("highlight.js/lib/languages/javascript"));
hljs.registerLanguage("python", require("highlight.js/lib/languages/python"));

/** A run as the server knows it: its id in URLs, its folder, and its summary or why it has none. */
export interface RunEntry {
  id: string;
  dir: string;
  summary: RunSummary | null;
  error: { code: string; message: string } | null;
}

/** The coded form of an error for a page (an error without a code, a bug, shows as `unexpected`). */
export function pageError(err: unknown): { code: string; message: string } {
  if (isSpadeError(err)) return { code: err.code, message: err.message };
  return { code: "unexpected", message: err instanceof Error ? err.message : String(err) };
}

const fmt = (x: number | null | undefined, digits = 3) =>
  x === null || x === undefined ? "-" : Number.isInteger(x) ? String(x) : x.toFixed(digits);
const q = (params: Record<string, string | number | undefined>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : "";
};

/** The page around `body`; `live` names what the page follows (a run id, or `*` for every run). */
export function layout(
  title: string,
  body: SafeHtml,
  options: { run?: RunEntry; live?: string } = {},
): string {
  const run = options.run;
  const nav = run
    ? html`<nav><a href="/">Runs</a> / <b>${run.summary?.name ?? run.id}</b>:
        <a href="/run/${run.id}">Overview</a> <a href="/run/${run.id}/archive">Archive</a>
        <a href="/run/${run.id}/designs">Design attempts</a> <a href="/run/${run.id}/episodes">Episodes</a> <a href="/play">Play</a></nav>`
    : html`<nav><a href="/">Runs</a> <a href="/play">Play</a></nav>`;
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><title>${title} - SPADE</title>
<link rel="stylesheet" href="/static/uPlot.min.css"><link rel="stylesheet" href="/static/highlight.css"><link rel="stylesheet" href="/static/app.css">
<script src="/static/uPlot.iife.min.js"></script><script src="/static/app.js" defer></script></head>
<body data-live="${options.live ?? ""}">${nav}<h1>${title}</h1><main id="main">${body}</main></body></html>`
      .text
  }`;
}

/** A coded error as a page shows it. */
export function errorBox(error: { code: string; message: string }): SafeHtml {
  return html`<div class="error"><code class="error-code">${error.code}</code> ${error.message}</div>`;
}

/** The Runs page: every run with its config summary, steps and status; runs can be ticked to overlay. */
export function runsPage(runs: readonly RunEntry[]): SafeHtml {
  const rows = runs.map((r) => {
    if (r.error || !r.summary) {
      return html`<tr class="run-row" data-run="${r.id}"><td></td><td>${r.dir}</td><td colspan="5">${errorBox(r.error ?? { code: "unexpected", message: "no summary" })}</td></tr>`;
    }
    const s = r.summary;
    const config = Object.entries(s.config).map(
      ([k, v]) =>
        html`<span class="kv">${k}=${typeof v === "string" ? v : JSON.stringify(v)}</span> `,
    );
    return html`<tr class="run-row" data-run="${r.id}"><td><input type="checkbox" name="run" value="${r.id}"></td>
      <td><a href="/run/${r.id}">${s.name}</a><div class="dir">${r.dir}</div></td><td class="status status-${s.status}">${s.status}</td>
      <td class="steps">${s.stepsDone} / ${s.stepsPlanned ?? "?"}</td><td>${s.environments}</td><td>${s.episodes}</td><td>${config}</td></tr>`;
  });
  return html`<form action="/compare" method="get"><table class="runs"><thead><tr><th></th><th>run</th><th>status</th><th>steps</th><th>environments</th><th>episodes</th><th>config</th></tr></thead>
    <tbody>${rows}</tbody></table><button type="submit">Overlay ticked runs</button></form>`;
}

/** The Run overview: one chart per metric; with several runs, each chart overlays them. */
export function overviewPage(runs: ReadonlyArray<{ run: RunEntry; series: RunSeries }>): SafeHtml {
  const charts = runs[0]?.series.charts ?? [];
  const data = charts.map((chart, c) => ({
    id: chart.id,
    title: chart.title,
    runs: runs.map(({ run, series }) => ({
      name: run.summary?.name ?? run.id,
      steps: series.steps,
      labels: series.charts[c]?.labels ?? [],
      values: series.charts[c]?.valuesBySeries ?? [],
    })),
  }));
  const steps = runs.map(
    ({ run, series }) =>
      html`<span class="kv">${run.summary?.name ?? run.id}: ${series.steps.length} steps</span> `,
  );
  return html`<p class="summary">${steps}</p><div class="charts">${charts.map((c) => html`<figure class="chart" data-chart="${c.id}"><figcaption>${c.title}</figcaption><div class="plot"></div></figure>`)}</div>
    ${jsonScript("chart-data", data)}`;
}

const options = (values: readonly string[], selected: string | undefined, all: string) => [
  html`<option value="">${all}</option>`,
  ...values.map(
    (v) => html`<option value="${v}"${raw(v === selected ? " selected" : "")}>${v}</option>`,
  ),
];

/** The environment archive with its filters; design slots that produced no environment follow (unless filtered out). */
export function archivePage(
  run: RunEntry,
  entries: readonly ArchiveEntry[],
  lost: readonly LostSlot[],
  skills: readonly string[],
  filter: ArchiveFilter,
): SafeHtml {
  const rows = entries.map(
    (
      e,
    ) => html`<tr class="env-row" data-env="${e.id}"><td><a href="/run/${run.id}/env/${encodeURIComponent(e.id)}">${e.name}</a></td><td>${e.skill}</td><td class="language">${e.language}</td><td>${e.source}</td><td>${e.createdStep}</td>
    <td>${e.stats.plays}</td><td class="win-rate">${fmt(e.stats.winRate)}</td><td class="regret">${fmt(e.stats.regret)}</td><td>${fmt(e.stats.designerReward)}</td><td>${fmt(e.stats.designerAdvantage)}</td>
    <td><a href="/play${q({ run: run.id, env: e.id })}">play</a></td></tr>`,
  );
  return html`<form class="filters" method="get">skill <select name="skill">${options(skills, filter.skill, "all skills")}</select>
    regret from <input name="regretMin" size="5" value="${filter.regretMin ?? ""}"> to <input name="regretMax" size="5" value="${filter.regretMax ?? ""}">
    designs <select name="validity">${options(["valid", "invalid"], filter.validity, "valid and invalid")}</select>
    <button type="submit">Filter</button></form>
    <p class="count">${entries.length} environments, ${lost.length} design slots without one</p>
    <table class="archive"><thead><tr><th>name</th><th>skill</th><th>language</th><th>source</th><th>step</th><th>plays</th><th>win rate</th><th>regret</th><th>designer reward</th><th>advantage</th><th></th></tr></thead><tbody>${rows}
    ${lost.map(
      (
        l,
      ) => html`<tr class="lost-row"><td><a href="/run/${run.id}/designs${q({ skill: l.skill })}">(invalid) slot ${l.step}/${l.slot}</a></td><td>${l.skill}</td><td>-</td><td>designer</td><td>${l.step}</td>
      <td colspan="6">${l.attempts} attempts; last ${l.outcome}${l.codes.length ? html`: ${l.codes.map((c) => html`<code class="failure-code">${c}</code> `)}` : ""}</td></tr>`,
    )}</tbody></table>`;
}

/** `code` highlighted as JavaScript, or as Python when it is (highlight.js escapes the text it wraps). */
export function highlighted(code: string): SafeHtml {
  const language = detectProgramLanguage(code);
  return raw(
    `<pre class="program"><code class="hljs language-${language}">${hljs.highlight(code, { language }).value}</code></pre>`,
  );
}

function messagesOf(prompt: Json | null): Array<{ role: string; content: string }> {
  if (!Array.isArray(prompt)) return [];
  return prompt.map((m) => {
    const o = (m ?? {}) as Record<string, Json>;
    return {
      role: String(o.role ?? "?"),
      content: typeof o.content === "string" ? o.content : JSON.stringify(o.content),
    };
  });
}

/** One environment: stats, validation report, program, and what the designer was shown. */
export function environmentPage(run: RunEntry, e: EnvironmentDetail): SafeHtml {
  const refs = Array.isArray(e.memoryRefs)
    ? e.memoryRefs
    : e.memoryRefs && typeof e.memoryRefs === "object"
      ? Object.values(e.memoryRefs).flat()
      : [];
  const checks =
    e.report?.checks.map(
      (c) => html`<li class="${c.ok ? "ok" : "failed"}"><code>${c.code}</code> ${c.message}</li>`,
    ) ?? [];
  return html`<p>${e.description}</p><p><span class="kv">skill ${e.skill}</span> <span class="kv">language ${e.language}</span> <span class="kv">${e.source}</span> <span class="kv">step ${e.createdStep}</span>
    <span class="kv">plays ${e.stats.plays}</span> <span class="kv">win rate ${fmt(e.stats.winRate)}</span> <span class="kv">regret ${fmt(e.stats.regret)}</span>
    <span class="kv">designer reward ${fmt(e.stats.designerReward)}</span> <span class="kv">advantage ${fmt(e.stats.designerAdvantage)}</span>
    <a href="/play${q({ run: run.id, env: e.id })}">play it</a> <a href="/run/${run.id}/episodes${q({ env: e.id })}">its episodes</a></p>
    <h2>Validation</h2>${e.report ? html`<ul class="checks">${checks}</ul>` : html`<p>library environment (not validated in this run)</p>`}
    ${e.hint === null ? "" : html`<h2>Model-written hint</h2><p class="hint">${e.hint}</p>`}
    <h2>Program</h2>${highlighted(e.code)}
    <h2>Grounding and memory</h2><p>document <code>${e.docId ?? "(none)"}</code>; memory references:
    ${refs.length ? refs.map((id) => html`<a href="/run/${run.id}/env/${encodeURIComponent(String(id))}">${String(id)}</a> `) : "(none)"}</p>
    ${messagesOf(e.prompt).map((m) => html`<details class="prompt"><summary>designer prompt: ${m.role}</summary><pre>${m.content}</pre></details>`)}`;
}

/** The design attempts page: a chart of lost designs per step and reason, and every attempt. */
export function attemptsPage(
  run: RunEntry,
  attempts: readonly AttemptEntry[],
  all: readonly AttemptEntry[],
  filter: AttemptFilter,
): SafeHtml {
  const byStep = failureCodesByStep(all);
  const chart = [
    {
      id: "failure-codes",
      title: "lost designs per step, by reason",
      runs: [
        {
          name: run.summary?.name ?? run.id,
          steps: byStep.steps,
          labels: byStep.codes,
          values: byStep.countsByCode,
        },
      ],
    },
  ];
  const outcomes = [...new Set(all.map((a) => a.outcome))].sort();
  const codes = [...new Set(all.flatMap((a) => a.failures.map((f) => f.code)))].sort();
  const rows = attempts.map(
    (
      a,
    ) => html`<tr class="attempt-row outcome-${a.outcome}"><td>${a.step}/${a.slot}/${a.seq}</td><td>${a.attempt}${a.repairTurn ? html` (repair ${a.repairTurn})` : ""}</td><td>${a.skill}</td>
    <td class="outcome">${a.outcome}${a.trainable ? " (trained)" : ""}</td>
    <td>${a.failures.map((f) => html`<div class="failure"><code class="failure-code">${f.code}</code> ${f.message}</div>`)}${a.duplicateOf ? html`duplicate of <a href="/run/${run.id}/env/${encodeURIComponent(a.duplicateOf)}">${a.duplicateOf}</a>` : ""}
    ${a.envId ? html`<a href="/run/${run.id}/env/${encodeURIComponent(a.envId)}">${a.envId}</a>` : ""}</td>
    <td><details><summary>${a.program === null ? "completion" : "program"}</summary>${a.program === null ? html`<pre>${a.completion}</pre>` : highlighted(a.program)}</details></td></tr>`,
  );
  return html`<div class="charts"><figure class="chart" data-chart="failure-codes"><figcaption>lost designs per step, by reason</figcaption><div class="plot"></div></figure></div>${jsonScript("chart-data", chart)}
    <form class="filters" method="get">outcome <select name="outcome">${options(outcomes, filter.outcome, "all outcomes")}</select>
    failing check <select name="code">${options(codes, filter.code, "any")}</select> <button type="submit">Filter</button></form>
    <p class="count">${attempts.length} of ${all.length} attempts</p>
    <table class="attempts"><thead><tr><th>step/slot/seq</th><th>attempt</th><th>skill</th><th>outcome</th><th>why</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The Episodes list, paged. */
export function episodesPage(
  run: RunEntry,
  list: { total: number; episodes: readonly EpisodeEntry[] },
  filter: { step?: number; envId?: string; offset: number; limit: number },
): SafeHtml {
  const rows = list.episodes.map(
    (
      e,
    ) => html`<tr class="episode-row"><td>${e.step}</td><td>${e.envName ?? e.envId}</td><td>${e.idx}</td><td>${e.seed}</td><td>${e.hinted ? "hinted" : "unhinted"}</td>
    <td>${fmt(e.return)}</td><td>${e.success ? "yes" : "no"}</td><td>${e.turns}</td><td>${e.failureCode ?? ""}</td>
    <td><a href="/run/${run.id}/episode${q({ step: e.step, env: e.envId, seed: e.seed })}">view pair</a></td></tr>`,
  );
  const next =
    filter.offset + filter.limit < list.total
      ? html`<a href="${q({ step: filter.step, env: filter.envId, offset: filter.offset + filter.limit })}">next page</a>`
      : "";
  return html`<form class="filters" method="get">step <input name="step" size="5" value="${filter.step ?? ""}"> environment <input name="env" size="10" value="${filter.envId ?? ""}"> <button type="submit">Filter</button></form>
    <p class="count">${list.total} episodes (showing ${list.episodes.length} from ${filter.offset})</p>
    <table class="episodes"><thead><tr><th>step</th><th>environment</th><th>idx</th><th>seed</th><th>hint</th><th>return</th><th>success</th><th>turns</th><th>failure</th><th></th></tr></thead><tbody>${rows}</tbody></table>${next}`;
}

function transcript(e: EpisodeDetail | null, side: string): SafeHtml {
  if (e === null)
    return html`<section class="transcript ${side}"><h2>${side}</h2><p>no ${side} play with this seed</p></section>`;
  const t = (e.transcript ?? {}) as {
    firstObservation?: string;
    outcome?: string;
    steps?: Array<Record<string, unknown>>;
  };
  const turns = (t.steps ?? []).map((s, i) => {
    const action = (s.action ?? {}) as {
      text?: string;
      answer?: string | null;
      toolCalls?: Array<{ id: string; name: string; arguments: unknown }>;
    };
    const results = (s.toolResults ?? []) as Array<{ id: string; content: string }>;
    return html`<div class="turn${s.masked ? " masked" : ""}"><div class="who">turn ${i + 1}</div>
      <div class="agent"><pre>${action.text ?? ""}</pre>${(action.toolCalls ?? []).map((c) => html`<div class="tool-call">call <code>${c.name}</code> <pre>${JSON.stringify(c.arguments, null, 1)}</pre></div>`)}</div>
      ${results.map((r) => html`<div class="tool-result">result ${r.id}: <pre>${r.content}</pre></div>`)}
      <div class="observation"><pre>${String(s.observation ?? "")}</pre></div><div class="reward">reward ${fmt(Number(s.reward))}${s.terminated ? " (terminated)" : ""}${s.truncated ? " (truncated)" : ""}</div></div>`;
  });
  return html`<section class="transcript ${side}"><h2>${side}: return ${fmt(e.return)}, ${e.success ? "success" : "no success"}, ${e.turns} turns</h2>
    ${e.failure ? errorBox({ code: e.failureCode ?? "failure", message: e.failure }) : ""}
    <div class="first-observation"><pre>${t.firstObservation ?? ""}</pre></div>${turns}<p>outcome ${t.outcome ?? "?"}</p></section>`;
}

/** The unhinted and hinted plays of one seed, side by side. */
export function episodePairPage(pair: {
  unhinted: EpisodeDetail | null;
  hinted: EpisodeDetail | null;
}): SafeHtml {
  const any = pair.unhinted ?? pair.hinted;
  const where = any
    ? html`<p class="episode-where">${any.envName ?? any.envId} (${any.envId}), step ${any.step}, seed ${any.seed}</p>`
    : html`<p>no episode with this step, environment and seed</p>`;
  return html`${where}<div class="pair">${transcript(pair.unhinted, "unhinted")}${transcript(pair.hinted, "hinted")}</div>`;
}

/** The Play page: choose an environment; the game itself is driven by static/app.js through /api/play. */
export function playPage(
  choices: ReadonlyArray<{ value: string; label: string }>,
  selected: string | undefined,
): SafeHtml {
  return html`<form class="play-start" id="play-start">environment <select name="source" id="play-source">${choices.map((c) => html`<option value="${c.value}"${raw(c.value === selected ? " selected" : "")}>${c.label}</option>`)}</select>
    seed <input name="seed" id="play-seed" size="6" value="0"> <button type="submit" id="play-reset">Start</button></form>
    <div id="play" hidden><div id="play-log" class="play-log"></div>
    <form id="play-form"><input id="play-input" size="60" placeholder="your reply, e.g. \\boxed{42}, or /call NAME {json}"> <button type="submit" id="play-send">Send</button>
    <button type="button" id="play-hint">Hint</button> <button type="button" id="play-oracle">Oracle move</button></form><p id="play-status" class="play-status"></p></div>`;
}
