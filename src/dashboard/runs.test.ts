import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeAndMessageOfAsync, codeOfAsync } from "../../test/assert.js";
import { STORE_FILE } from "../store/index.js";
import { discoverRuns, RunCatalog } from "./runs.js";
import { fileTempDir } from "../../test/cleanup.js";

const root = fileTempDir("spade-dash-runs-");

/** A folder under the test root, holding an (empty) store file when `store`. */
function folder(path: string, store: boolean): string {
  const dir = join(root, path);
  mkdirSync(dir, { recursive: true });
  if (store) writeFileSync(join(dir, STORE_FILE), "");
  return dir;
}

describe("discoverRuns", () => {
  it("takes a root holding a store, else its sub-folders holding one (sorted), else the root itself", () => {
    const run = folder("single", true);
    folder("many/b", true);
    folder("many/a", true);
    folder("many/not-a-run", false);
    const empty = folder("empty", false);
    const missing = join(root, "missing");
    expect(discoverRuns([run, join(root, "many"), empty, missing, `${run}/`])).toEqual([
      run,
      join(root, "many/a"),
      join(root, "many/b"),
      empty,
      missing,
    ]);
  });
});

describe("RunCatalog", () => {
  it("keeps each run's id for its life; a run that appears later gets the next id", () => {
    folder("cat/m", true);
    const catalog = new RunCatalog([join(root, "cat")]);
    expect(catalog.list()).toEqual([{ id: "r0", dir: join(root, "cat/m") }]);
    folder("cat/a", true);
    expect(catalog.list()).toEqual([
      { id: "r1", dir: join(root, "cat/a") },
      { id: "r0", dir: join(root, "cat/m") },
    ]);
  });

  it("refuses an id it never gave with E_NOT_FOUND", async () => {
    const catalog = new RunCatalog([folder("lone", true)]);
    expect(await codeOfAsync(catalog.find("r1"))).toBe("E_NOT_FOUND");
    expect(await codeAndMessageOfAsync(catalog.find("r9"))).toEqual({
      code: "E_NOT_FOUND",
      message: "no run r9 on this dashboard (open the Runs page and choose one)",
    });
  });
});
