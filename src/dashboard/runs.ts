/**
 * @module dashboard/runs
 * The runs a dashboard shows: found under its roots at each request, each with an id (`r0`,
 * `r1`...) that stays the same for the server's life, read into a summary or a coded error.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { SpadeError } from "../errors.js";
import { STORE_FILE } from "../store/index.js";
import * as pages from "./pages.js";
import * as read from "./queries.js";
import { whileLocked } from "./store-read.js";

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

/** A run's folder and its id on this dashboard. */
export interface RunDir {
  id: string;
  dir: string;
}

/** The runs under a dashboard's roots, with ids stable for the catalog's life. */
export class RunCatalog {
  readonly #ids = new Map<string, string>(); // dir -> id

  /** The runs under `roots`, as `discoverRuns` finds them. */
  constructor(private readonly roots: readonly string[]) {}

  /** The runs found now, each with its id (a new folder gets the next one). */
  list(): RunDir[] {
    return discoverRuns(this.roots).map((dir) => {
      if (!this.#ids.has(dir)) this.#ids.set(dir, `r${this.#ids.size}`);
      return { id: this.#ids.get(dir) as string, dir };
    });
  }

  /**
   * The run read into its summary; a run that cannot be read carries its coded error instead. A
   * store locked by another process is read again until it is let go or the wait is over
   * (`whileLocked`).
   */
  entry(r: RunDir): Promise<pages.RunEntry> {
    return whileLocked(
      (): pages.RunEntry => {
        try {
          return { ...r, summary: read.runSummary(r.dir), error: null };
        } catch (err) {
          return { ...r, summary: null, error: pages.pageError(err) };
        }
      },
      (e) => e.error?.code === "E_RUN_LOCKED",
    );
  }

  /** The run with id `id`, read (see `entry`); E_NOT_FOUND when this dashboard has none. */
  async find(id: string): Promise<pages.RunEntry> {
    const r = this.list().find((x) => x.id === id);
    if (!r)
      throw new SpadeError("E_NOT_FOUND", `no run ${id} on this dashboard`, {
        nextStep: "open the Runs page and choose one",
      });
    return this.entry(r);
  }
}
