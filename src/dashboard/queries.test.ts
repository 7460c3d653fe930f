// The archive's language column: read from the store, or told from the code in a store made before it.
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { EMPTY_STATS, RunStore, STORE_FILE, type EnvironmentRow } from "../store/index.js";
import { archivePage } from "./pages.js";
import { archive, environmentDetail } from "./queries.js";
import { fileTempDir } from "../../test/cleanup.js";

const dir = fileTempDir("spade-dash-language-");

const row = (id: string, code: string): EnvironmentRow => ({
  id,
  name: id,
  skill: "Logical Deduction",
  description: "d",
  code,
  meta: { name: id, skill: "Logical Deduction", description: "d", maxTurns: 2, tools: [] },
  source: "library",
  createdStep: 0,
  slot: null,
  docId: null,
  hint: null,
  stats: EMPTY_STATS,
});

describe("the archive's language", () => {
  it("shows each environment's language, also for a store made before the column", () => {
    const store = RunStore.open(dir, "create");
    store.transaction(() => {
      store.insertEnvironment(row("lib-a", "class Environment { reset() {} }"));
      store.insertEnvironment(row("pool-b", "class CoinEnv:\n    pass\n"));
    });
    store.close();
    const languages = () => archive(dir).map((e) => [e.id, e.language]);
    expect(languages()).toEqual([
      ["lib-a", "javascript"],
      ["pool-b", "python"],
    ]);
    expect(environmentDetail(dir, "pool-b")?.language).toBe("python");
    const page = String(
      archivePage(
        { id: "r", dir, summary: null, error: null },
        archive(dir),
        [],
        ["Logical Deduction"],
        {},
      ),
    );
    expect(page).toContain("<th>skill</th><th>language</th>");
    expect(page).toContain('<td class="language">python</td>');
    const db = new Database(join(dir, STORE_FILE));
    db.exec("ALTER TABLE environments DROP COLUMN language");
    db.close();
    expect(languages()).toEqual([
      ["lib-a", "javascript"],
      ["pool-b", "python"],
    ]);
  });
});
