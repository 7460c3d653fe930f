/**
 * The dashboard over damaged run stores, served for real: an empty file, another program's
 * database, a store cut mid-page, random bytes, a newer schema, a meta table without its schema
 * version, a folder and a FIFO in the store's place, a writer in another process, and run folders
 * deleted while served. Each bad run shows its coded error; the others keep serving.
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeBigRun } from "../bench/big-run.js";
import { mulberry32 } from "../random/index.js";
import { STORE_FILE } from "../store/index.js";
import { fileTempDir } from "../../test/cleanup.js";
import { holdStore, release } from "../../test/hold-store.js";
import { escapeHtml } from "./html.js";
import { startDashboard, type Dashboard } from "./server.js";
import { testDashboardOptions } from "./testing/options.js";

const SIZE = { steps: 3, environments: 4, episodes: 200 };
const root = fileTempDir("spade-dash-damaged-");
const runs = join(root, "runs");
const store = (name: string) => join(runs, name, STORE_FILE);
const CORRUPT_NEXT =
  "restore it from a backup, or start a new run in another folder (--out); `sqlite3 run.sqlite .recover` may save what is left";
const corrupt = (name: string, why: string) =>
  `${store(name)} is damaged or is not a run store (${why}) (${CORRUPT_NEXT})`;
const NO_META = "it has no meta table: empty, or another program's database";

/** The damaged runs (ids r1... under `runs/`, after the good r0), each with what it shows. */
const DAMAGED = [
  { id: "r1", name: "b-empty", status: 500, code: "E_STORE_CORRUPT", why: NO_META },
  { id: "r2", name: "c-foreign", status: 500, code: "E_STORE_CORRUPT", why: NO_META },
  {
    id: "r3",
    name: "d-cut",
    status: 500,
    code: "E_STORE_CORRUPT",
    why: "SQLITE_CORRUPT: database disk image is malformed",
  },
  {
    id: "r4",
    name: "e-garbage",
    status: 500,
    code: "E_STORE_CORRUPT",
    why: "SQLITE_NOTADB: file is not a database",
  },
  // E_CONFIG, as the commands say it, but the server's store: no request could change it.
  { id: "r5", name: "f-newer", status: 500, code: "E_CONFIG", why: null },
  {
    id: "r6",
    name: "f2-unversioned",
    status: 500,
    code: "E_STORE_CORRUPT",
    why: "its meta table has no schema_version: cut short, or edited",
  },
  { id: "r7", name: "f3-folder", status: 500, code: "E_IO", why: "a folder" },
  { id: "r8", name: "f4-fifo", status: 500, code: "E_IO", why: "a named pipe (FIFO)" },
].map((d) => ({
  ...d,
  message:
    d.why === null
      ? `${store(d.name)} has schema version 2, this SPADE reads 1 (use the SPADE version that wrote the run)`
      : d.code === "E_IO"
        ? `${store(d.name)} is ${d.why}, not a file: a run's store is the SQLite file run.sqlite (give the folder a run was written to (--out); if that is ${join(runs, d.name)}, its store was replaced: move ${store(d.name)} out of the way and restore run.sqlite from a backup)`
        : corrupt(d.name, d.why),
}));
/** The ids of the good runs listed after the damaged ones: a writer's, one deleted, a root given by name. */
const [WRITER, DELETED, SOLO] = [1, 2, 3].map((i) => `r${DAMAGED.length + i}`) as [
  string,
  string,
  string,
];

let dashboard: Dashboard;
const get = async (path: string) => {
  const response = await fetch(new URL(path, dashboard.url));
  return { status: response.status, text: await response.text() };
};
const startPlay = async (source: string) => {
  const response = await fetch(new URL("/api/play/start", dashboard.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ source }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
/** The coded error the Runs page shows in run `id`'s row; null when the row shows the run. */
const rowError = (page: string, id: string) =>
  new RegExp(
    `<tr class="run-row" data-run="${id}">.*?<code class="error-code">([^<]*)</code> ([^<]*)</div>`,
  )
    .exec(page)
    ?.slice(1) ?? null;
const errorBox = (code: string, message: string) =>
  `<div class="error"><code class="error-code">${code}</code> ${escapeHtml(message)}</div>`;

beforeAll(async () => {
  writeBigRun(join(runs, "a-good"), SIZE);
  mkdirSync(join(runs, "b-empty"));
  writeFileSync(store("b-empty"), "");
  mkdirSync(join(runs, "c-foreign"));
  const foreign = new Database(store("c-foreign"));
  foreign.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('not a run')");
  foreign.close();
  writeBigRun(join(runs, "d-cut"), SIZE);
  // Cut past the first half, 1000 bytes into a 4096-byte page.
  truncateSync(store("d-cut"), Math.floor(statSync(store("d-cut")).size / 8192) * 4096 + 1000);
  mkdirSync(join(runs, "e-garbage"));
  const random = mulberry32(5);
  writeFileSync(
    store("e-garbage"),
    Buffer.from(Array.from({ length: 65_536 }, () => random() * 256)),
  );
  writeBigRun(join(runs, "f-newer"), SIZE);
  const newer = new Database(store("f-newer"));
  newer.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
  newer.close();
  writeBigRun(join(runs, "f2-unversioned"), SIZE);
  const unversioned = new Database(store("f2-unversioned"));
  unversioned.prepare("DELETE FROM meta WHERE key = 'schema_version'").run();
  unversioned.close();
  mkdirSync(store("f3-folder"), { recursive: true });
  mkdirSync(join(runs, "f4-fifo"));
  execFileSync("mkfifo", [store("f4-fifo")]);
  writeBigRun(join(runs, "g-writer"), SIZE);
  writeBigRun(join(runs, "h-deleted"), SIZE);
  writeBigRun(join(root, "solo"), SIZE);
  dashboard = await startDashboard(testDashboardOptions([runs, join(root, "solo")]));
});
afterAll(() => dashboard.close());

describe("damaged stores", () => {
  it("lists each damaged run with its coded error, and the good ones with their steps", async () => {
    const { status, text } = await get("/");
    expect(status).toBe(200);
    expect(DAMAGED.map((d) => rowError(text, d.id))).toEqual(
      DAMAGED.map((d) => [d.code, escapeHtml(d.message)]),
    );
    expect(["r0", WRITER, DELETED, SOLO].map((id) => rowError(text, id))).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(text.match(/<td class="steps">3 \/ 3<\/td>/g)?.length).toBe(4);
  });

  it("answers every page of a damaged run with its error, and Play with its coded JSON", async () => {
    for (const d of DAMAGED) {
      for (const view of ["", "/archive", "/designs", "/episodes", "/env/d0-0"]) {
        const page = await get(`/run/${d.id}${view}`);
        expect(
          [page.status, page.text.includes(errorBox(d.code, d.message))],
          d.name + view,
        ).toEqual([d.status, true]);
      }
      const overlay = await get(`/compare?run=${d.id}`);
      expect(
        [overlay.status, overlay.text.includes(errorBox(d.code, d.message))],
        `${d.name} overlay`,
      ).toEqual([d.status, true]);
      expect(await startPlay(`run:${d.id}:d0-0`), d.name).toEqual({
        status: d.status,
        body: { error: { code: d.code, message: d.message } },
      });
    }
    expect((await get("/run/r0/episodes")).status).toBe(200);
    expect((await get("/play")).status).toBe(200);
  });

  it("answers a bad request 400 and a name of nothing 404, saying what to give", async () => {
    const play = await startPlay("lib:none");
    const seed = await fetch(new URL("/api/play/start", dashboard.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: "run:r0:d0-0", seed: -1 }),
    });
    const pages = await Promise.all(
      ["/run/r0/episode?step=0", "/compare", "/compare?run=r0&run=r5"].map(get),
    );
    expect({
      play: [play.status, play.body],
      seed: [seed.status, await seed.json()],
      pages: pages.map((p) => [
        p.status,
        /<code class="error-code">(\w+)<\/code>/.exec(p.text)?.[1],
      ]),
    }).toEqual({
      play: [
        404,
        {
          error: {
            code: "E_NOT_FOUND",
            message: "no environment lib:none (choose one from the list)",
          },
        },
      ],
      seed: [
        400,
        { error: { code: "E_CONFIG", message: "seed must be an integer >= 0 (got -1)" } },
      ],
      pages: [
        [400, "E_CONFIG"], // an episode is named by step, env and seed
        [400, "E_CONFIG"], // no run ticked
        [200, undefined], // the readable one is shown
      ],
    });
  });

  it("reads a store another process holds in a write transaction: committed rows, or E_RUN_LOCKED", async () => {
    // WAL lets readers past a writer's open transaction: they see what was committed.
    const writer = await holdStore(store("g-writer"), [
      "BEGIN IMMEDIATE",
      "INSERT INTO steps (step, status) VALUES (7, 'running')",
      "UPDATE meta SET value = 'garbage' WHERE key = 'schema_version'",
    ]);
    try {
      expect(rowError((await get("/")).text, WRITER)).toBe(null);
      expect((await get(`/run/${WRITER}/episodes`)).status).toBe(200);
    } finally {
      await release(writer);
    }
    // A writer in exclusive locking mode lets no reader in.
    const exclusive = await holdStore(store("g-writer"), [
      "PRAGMA locking_mode = EXCLUSIVE",
      "BEGIN EXCLUSIVE",
      "INSERT INTO steps (step, status) VALUES (7, 'running')",
    ]);
    const locked = `${store("g-writer")} is locked by process ${exclusive.pid} (node) (SQLITE_BUSY) (the dashboard reads it again on the next refresh; if it stays locked, stop the process holding it)`;
    try {
      expect(rowError((await get("/")).text, WRITER)).toEqual(["E_RUN_LOCKED", escapeHtml(locked)]);
      const page = await get(`/run/${WRITER}/archive`);
      expect([page.status, page.text.includes(errorBox("E_RUN_LOCKED", locked))]).toEqual([
        503,
        true,
      ]);
      expect((await get("/run/r0")).status).toBe(200);
    } finally {
      await release(exclusive);
    }
    expect((await get(`/run/${WRITER}`)).status).toBe(200);
  });

  it("waits for a locked store on timers: other requests are answered meanwhile, and a lock let go in time shows the page", async () => {
    const hold = () =>
      holdStore(store("g-writer"), [
        "PRAGMA locking_mode = EXCLUSIVE",
        "BEGIN EXCLUSIVE",
        "INSERT INTO steps (step, status) VALUES (7, 'running')",
      ]);
    const answered: string[] = [];
    const track = async (name: string, path: string) => {
      const response = await fetch(new URL(path, dashboard.url));
      answered.push(name);
      const text = await response.text();
      return { status: response.status, retryAfter: response.headers.get("retry-after"), text };
    };
    const held = await hold();
    try {
      const locked = track("locked page", `/run/${WRITER}/archive`);
      const index = track("runs page", "/");
      const overlay = track("overlay", `/compare?run=${WRITER}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const other = track("another run's page", "/run/r0");
      const [l, i, v, o] = await Promise.all([locked, index, overlay, other]);
      const message = `${store("g-writer")} is locked by process ${held.pid} (node) (SQLITE_BUSY) (the dashboard reads it again on the next refresh; if it stays locked, stop the process holding it)`;
      // The locked ones end their waits in any order, after the other run's page.
      expect({
        first: answered[0],
        locked: [l.status, l.retryAfter, l.text.includes(errorBox("E_RUN_LOCKED", message))],
        index: [i.status, i.retryAfter, rowError(i.text, WRITER)],
        overlay: [v.status, v.retryAfter, v.text.includes(errorBox("E_RUN_LOCKED", message))],
        other: [o.status, o.retryAfter],
      }).toEqual({
        first: "another run's page",
        locked: [503, "1", true],
        index: [200, null, ["E_RUN_LOCKED", escapeHtml(message)]],
        overlay: [503, "1", true],
        other: [200, null],
      });
    } finally {
      await release(held);
    }
    // A lock let go while the page waits: the page shows the run.
    const briefly = await hold();
    const page = fetch(new URL(`/run/${WRITER}`, dashboard.url));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await release(briefly);
    expect((await page).status).toBe(200);
  });

  it("announces a run folder deleted while served, then answers its pages with E_NOT_FOUND", async () => {
    const events = new AbortController();
    const response = await fetch(new URL("/events", dashboard.url), { signal: events.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    let pending: ReturnType<typeof reader.read> | null = null;
    // Reads the stream until it holds `text` or a generous 5 s passed (the poll is 50 ms).
    const until = async (text: string) => {
      const deadline = Date.now() + 5000;
      while (!seen.includes(text) && Date.now() < deadline) {
        pending ??= reader.read();
        const chunk = await Promise.race([
          pending,
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 100)),
        ]);
        if (chunk) {
          pending = null;
          seen += new TextDecoder().decode(chunk.value);
        }
      }
    };
    try {
      await until(": connected");
      expect((await get(`/run/${DELETED}`)).status).toBe(200);
      rmSync(join(runs, "h-deleted"), { recursive: true });
      rmSync(join(root, "solo"), { recursive: true });
      await until(`data: {"run":"${DELETED}"}`);
      await until(`data: {"run":"${SOLO}"}`);
      expect([
        seen.includes(`event: change\ndata: {"run":"${DELETED}"}`),
        seen.includes(`event: change\ndata: {"run":"${SOLO}"}`),
      ]).toEqual([true, true]);
      // A folder found under a root is gone from the list; a root given by name stays, with its error.
      expect(await get(`/run/${DELETED}/archive`)).toEqual({
        status: 404,
        text: expect.stringContaining(
          errorBox(
            "E_NOT_FOUND",
            `no run ${DELETED} on this dashboard (open the Runs page and choose one)`,
          ),
        ),
      });
      const solo = `no run in ${join(root, "solo")} (${STORE_FILE} is missing) (give the folder a run was written to (--out))`;
      expect((await get(`/run/${SOLO}`)).status).toBe(404);
      const index = await get("/");
      expect([
        index.status,
        index.text.includes(`data-run="${DELETED}"`),
        rowError(index.text, SOLO),
      ]).toEqual([200, false, ["E_NOT_FOUND", escapeHtml(solo)]]);
      expect((await get("/run/r0")).status).toBe(200);
    } finally {
      events.abort();
    }
  });
});
