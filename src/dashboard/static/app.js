// SPADE dashboard page script (served as is; no build step). Draws the charts with uPlot from the
// JSON the server embedded in the page, follows live changes through server-sent events (the page's
// <main> is re-fetched, never the whole page), and drives the Play page through /api/play.

const COLOURS = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#7f7f7f",
  "#bcbd22",
];
/** Steps are whole numbers: ticks at whole-number spacings only. */
const STEP_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
let plots = [];

function drawCharts() {
  for (const p of plots) p.destroy();
  plots = [];
  const script = document.getElementById("chart-data");
  if (!script) return;
  const charts = JSON.parse(script.textContent);
  for (const chart of charts) {
    const figure = document.querySelector(`figure[data-chart="${CSS.escape(chart.id)}"]`);
    if (!figure) continue;
    const target = figure.querySelector(".plot");
    const xs = [...new Set(chart.runs.flatMap((r) => r.steps))].sort((a, b) => a - b);
    const series = [{ label: "step" }];
    const data = [xs];
    let points = 0;
    chart.runs.forEach((run, r) => {
      const at = new Map(run.steps.map((s, i) => [s, i]));
      run.labels.forEach((label, l) => {
        const values = xs.map((x) => (at.has(x) ? run.values[l][at.get(x)] : null));
        points += values.filter((v) => v !== null && v !== undefined).length;
        series.push({
          label: chart.runs.length > 1 ? `${run.name}: ${label}` : label,
          stroke: COLOURS[(r * 3 + l) % COLOURS.length],
          width: 2,
          spanGaps: true,
          points: { show: xs.length <= 60 },
        });
        data.push(values);
      });
    });
    figure.dataset.points = String(points);
    figure.dataset.series = String(series.length - 1);
    if (points === 0) {
      target.textContent = "no data yet";
      continue;
    }
    target.textContent = "";
    const opts = {
      width: Math.max(280, Math.min(560, target.clientWidth || 480)),
      height: 220,
      scales: { x: { time: false } },
      series,
      axes: [{ label: "step", incrs: STEP_TICKS }, {}],
    };
    plots.push(new uPlot(opts, data, target));
  }
}

let refreshing = false;
let again = false;
async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    const url = new URL(location.href);
    url.searchParams.set("fragment", "1");
    const response = await fetch(url, { cache: "no-store" });
    const text = await response.text();
    const main = document.getElementById("main");
    // Keep open <details> open and ticked boxes ticked across the swap.
    const open = [...main.querySelectorAll("details[open] > summary")].map((s) => s.textContent);
    const ticked = [...main.querySelectorAll("input[type=checkbox]:checked")].map(
      (c) => `${c.name}=${c.value}`,
    );
    main.innerHTML = text; // the server escaped every model-written string in this fragment
    for (const s of main.querySelectorAll("details > summary"))
      if (open.includes(s.textContent)) s.parentElement.open = true;
    for (const c of main.querySelectorAll("input[type=checkbox]"))
      if (ticked.includes(`${c.name}=${c.value}`)) c.checked = true;
    drawCharts();
    document.body.dataset.updates = String(Number(document.body.dataset.updates || "0") + 1);
  } finally {
    refreshing = false;
    if (again) {
      again = false;
      setTimeout(refresh, 0);
    }
  }
}

function followLive() {
  const live = document.body.dataset.live;
  if (!live) return;
  const events = new EventSource("/events");
  let timer = null;
  events.addEventListener("change", (e) => {
    const { run } = JSON.parse(e.data);
    if (live !== "*" && live !== run) return;
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
  events.addEventListener("open", () => (document.body.dataset.liveConnected = "1"));
}

function setupPlay() {
  const start = document.getElementById("play-start");
  if (!start) return;
  const log = document.getElementById("play-log");
  const status = document.getElementById("play-status");
  let session = null;
  const say = (cls, text) => {
    const div = document.createElement("div");
    div.className = cls;
    div.textContent = text; // environment text is shown as text, never as markup
    log.append(div);
    log.scrollTop = log.scrollHeight;
  };
  const call = async (action, payload) => {
    const response = await fetch(`/api/play/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    const value = await response.json();
    if (value.error) {
      say("play-error", `${value.error.code}: ${value.error.message}`);
      return null;
    }
    session = value.session;
    say("play-env", value.say);
    status.textContent = `${value.name} seed ${value.seed}: turn ${value.turns}/${value.maxTurns}, return ${value.return}${value.over ? (value.success ? " - SUCCESS" : " - episode over, no success") : ""}`;
    status.dataset.over = String(value.over);
    status.dataset.success = String(value.success);
    return value;
  };
  start.addEventListener("submit", async (e) => {
    e.preventDefault();
    document.getElementById("play").hidden = false;
    log.textContent = "";
    // The previous game of this page is closed by the start, so it does not hold one of the
    // dashboard's few places.
    await call("start", {
      source: document.getElementById("play-source").value,
      seed: Number(document.getElementById("play-seed").value || 0),
      replace: session,
    });
  });
  // A page that goes frees its game (keepalive lets the request outlive the page); a page that
  // comes back from the back-forward cache is told on its next move that the game was closed.
  addEventListener("pagehide", () => {
    if (session === null) return;
    fetch("/api/play/close", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ session }),
      keepalive: true,
    }).catch(() => {});
  });
  document.getElementById("play-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const input = document.getElementById("play-input");
    say("play-you", `> ${input.value}`);
    const text = input.value;
    input.value = "";
    await call("reply", { session, text });
  });
  document.getElementById("play-hint").addEventListener("click", () => call("hint", { session }));
  document
    .getElementById("play-oracle")
    .addEventListener("click", () => call("oracle", { session }));
}

drawCharts();
followLive();
setupPlay();
