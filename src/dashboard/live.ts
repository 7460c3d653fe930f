/**
 * @module dashboard/live
 * Live updates: the run stores' files (`run.sqlite` and its WAL) are checked every `pollMs`; a
 * change (size or time), a run that appeared or one that went, is announced to every open page as
 * a server-sent event `change` with the run's id. Pages then fetch their content again.
 */
import { statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { STORE_FILE } from "../store/index.js";
import { send } from "./http.js";

/**
 * Event streams open at once: 100. Each holds a socket (a file descriptor) for as long as its
 * page stays open, so without a cap one client could open streams until the process has no
 * descriptors left for its stores; a browser opens one per tab.
 */
export const MAX_EVENT_STREAMS = 100;

/** The change feed of one dashboard. */
export class LiveFeed {
  readonly #streams = new Set<ServerResponse>();
  readonly #seen = new Map<string, string>();
  readonly #timers: NodeJS.Timeout[];
  readonly #maxStreams: number;

  /** Starts watching the runs `runs()` lists (asked again at each check); at most `maxStreams` follow it. */
  constructor(
    runs: () => ReadonlyArray<{ id: string; dir: string }>,
    pollMs: number,
    maxStreams = MAX_EVENT_STREAMS,
  ) {
    this.#maxStreams = maxStreams;
    let first = true;
    const check = () => {
      const changed: string[] = [];
      const listed = runs();
      for (const r of listed) {
        const mark = storeMark(r.dir);
        const before = this.#seen.get(r.id);
        this.#seen.set(r.id, mark);
        if (before !== mark) changed.push(r.id);
      }
      // A run no longer listed (its folder was deleted) changed too: its open pages then show so.
      const ids = new Set(listed.map((r) => r.id));
      for (const id of this.#seen.keys())
        if (!ids.has(id)) {
          this.#seen.delete(id);
          changed.push(id);
        }
      if (!first)
        for (const id of changed)
          this.#send(`event: change\ndata: ${JSON.stringify({ run: id })}\n\n`);
      first = false;
    };
    check();
    this.#timers = [
      setInterval(check, pollMs),
      setInterval(() => this.#send(": ping\n\n"), 15_000),
    ];
  }

  #send(text: string): void {
    for (const s of this.#streams) s.write(text);
  }

  /** Answers `/events`: keeps the response open as an event stream until the page goes; 503 past the cap. */
  subscribe(req: IncomingMessage, res: ServerResponse): void {
    if (this.#streams.size >= this.#maxStreams) {
      send(
        res,
        503,
        "text/plain; charset=utf-8",
        `${this.#maxStreams} live-update streams are open, the most this dashboard serves: close other dashboard tabs, then reload\n`,
      );
      return;
    }
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    res.write(": connected\n\n");
    this.#streams.add(res);
    req.on("close", () => this.#streams.delete(res));
  }

  /** Stops watching and ends every stream. */
  close(): void {
    for (const t of this.#timers) clearInterval(t);
    for (const s of this.#streams) s.end();
    this.#streams.clear();
  }
}

/** Size and modification time of a store's files: changes whenever a transaction commits. */
function storeMark(dir: string): string {
  let mark = "";
  for (const suffix of ["", "-wal"]) {
    try {
      const s = statSync(join(dir, `${STORE_FILE}${suffix}`));
      mark += `${s.size}:${s.mtimeMs};`;
    } catch {
      mark += "-;";
    }
  }
  return mark;
}
