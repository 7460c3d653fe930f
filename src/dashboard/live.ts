/**
 * @module dashboard/live
 * Live updates: the run stores' files (`run.sqlite` and its WAL) are checked every `pollMs`; a
 * change (size or time), or a run that appeared, is announced to every open page as a
 * server-sent event `change` with the run's id. Pages then fetch their content again.
 */
import { statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { STORE_FILE } from "../store/index.js";

/** The change feed of one dashboard. */
export class LiveFeed {
  readonly #streams = new Set<ServerResponse>();
  readonly #seen = new Map<string, string>();
  readonly #timers: NodeJS.Timeout[];

  /** Starts watching the runs `runs()` lists (asked again at each check). */
  constructor(runs: () => ReadonlyArray<{ id: string; dir: string }>, pollMs: number) {
    let first = true;
    const check = () => {
      for (const r of runs()) {
        const mark = storeMark(r.dir);
        const before = this.#seen.get(r.id);
        this.#seen.set(r.id, mark);
        if (before !== mark && !first)
          this.#send(`event: change\ndata: ${JSON.stringify({ run: r.id })}\n\n`);
      }
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

  /** Answers `/events`: keeps the response open as an event stream until the page goes. */
  subscribe(req: IncomingMessage, res: ServerResponse): void {
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
