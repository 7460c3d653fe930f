/**
 * The store's journal: WAL while a writer holds it, one self-contained file in rollback-journal
 * mode once closed, so a finished run reads from a read-only folder (chattr +i) or disk (a tmpfs
 * remounted read-only); and where a store stays in WAL, a read-only reader gets every committed
 * row or a coded error, never an older state.
 */
import Database from "better-sqlite3";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeAndMessageOf } from "../../test/assert.js";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { mountTmpfs, remountTmpfs, skipWithoutTmpfs } from "../../test/tmpfs.js";
import { RunStore, STORE_FILE } from "./run-store.js";

const tmp = tempDirsAfterEach("spade-journal-");

/** The journal mode written in the store file's header, read by a connection of its own. */
function journalMode(dir: string): string {
  const db = new Database(join(dir, STORE_FILE), { readonly: true });
  try {
    return String(db.pragma("journal_mode", { simple: true }));
  } finally {
    db.close();
  }
}

/** A store in `dir` holding the meta rows `keys` (each its own commit), closed. */
function written(dir: string, keys: readonly string[]): void {
  const store = RunStore.open(dir, "create");
  for (const key of keys) store.transaction(() => store.setMeta(key, `value of ${key}`));
  store.close();
}

/** The meta rows `keys` as a reader of `dir` reads them. */
function readKeys(dir: string, keys: readonly string[]): Array<string | undefined> {
  const store = RunStore.open(dir, "read");
  try {
    return keys.map((k) => store.getMeta(k));
  } finally {
    store.close();
  }
}

/** Runs `body` with `dir` made immutable (no file in it can be created or removed), even for root. */
function immutable<T>(dir: string, body: () => T): T {
  execFileSync("chattr", ["+i", dir]);
  try {
    return body();
  } finally {
    execFileSync("chattr", ["-i", dir]);
  }
}

describe("the journal of a store", () => {
  it("is WAL while a writer holds it; closed, the store is one file in rollback-journal mode; a resume writes in WAL again", () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.transaction(() => store.setMeta("a", "1"));
    expect(journalMode(dir)).toBe("wal");
    store.close();
    expect([journalMode(dir), readdirSync(dir).sort()]).toEqual([
      "delete",
      ["run.lock", "run.sqlite"],
    ]);
    const resumed = RunStore.open(dir, "resume");
    resumed.transaction(() => resumed.setMeta("b", "2"));
    expect(journalMode(dir)).toBe("wal");
    resumed.close();
    expect([journalMode(dir), readKeys(dir, ["a", "b"])]).toEqual(["delete", ["1", "2"]]);
  });
});

describe.skipIf(skipWithoutTmpfs())(
  "a store on a read-only folder or disk (root: chattr, tmpfs)",
  () => {
    /** Runs `body` on a fresh tmpfs of 2 MiB (`disk`, with `run` a folder in it), unmounted after. */
    const onDisk = (body: (run: string, disk: string) => void): void => {
      const dir = tmp();
      const unmount = mountTmpfs(dir, "2m");
      try {
        body(join(dir, "run"), dir);
      } finally {
        unmount();
      }
    };

    it("a closed run reads from a folder made read-only (chattr +i), creating nothing there", () => {
      onDisk((run) => {
        written(run, ["a", "b"]);
        const read = immutable(run, () => [readKeys(run, ["a", "b"]), readdirSync(run).sort()]);
        expect(read).toEqual([
          ["value of a", "value of b"],
          ["run.lock", "run.sqlite"],
        ]);
      });
    });

    it("a closed run reads every row from a disk remounted read-only", () => {
      onDisk((run, dir) => {
        written(run, ["a", "b"]);
        remountTmpfs(dir);
        expect(readKeys(run, ["a", "b"])).toEqual(["value of a", "value of b"]);
      });
    });

    it("closed while another connection reads it, it stays in WAL with its -wal and -shm, and reads every row", () => {
      onDisk((run, dir) => {
        const store = RunStore.open(run, "create");
        store.transaction(() => store.setMeta("a", "1"));
        const reader = RunStore.open(run, "read");
        expect(reader.getMeta("a")).toBe("1");
        store.transaction(() => store.setMeta("b", "2"));
        store.close(); // the reader holds the store: it cannot leave WAL, and its WAL is kept
        reader.close();
        expect(statSync(join(run, `${STORE_FILE}-wal`)).size).toBeGreaterThan(0);
        expect(readdirSync(run).sort()).toEqual([
          "run.lock",
          "run.sqlite",
          "run.sqlite-shm",
          "run.sqlite-wal",
        ]);
        remountTmpfs(dir);
        expect([journalMode(run), readKeys(run, ["a", "b"])]).toEqual(["wal", ["1", "2"]]);
      });
    });

    it("a killed writer's folder reads the row only its WAL holds", () => {
      onDisk((run, dir) => {
        written(run, ["a"]);
        // A writer killed after a commit (the run's own writer is killed this way in test/e2e/resume).
        const sqlite = createRequire(import.meta.url).resolve("better-sqlite3");
        const script = `const db = new (require(${JSON.stringify(sqlite)}))(process.argv[1]);
        db.pragma("journal_mode = WAL");
        db.prepare("INSERT INTO meta (key, value) VALUES ('late', 'committed')").run();
        process.kill(process.pid, "SIGKILL");`;
        const killed = spawnSync(process.execPath, ["-e", script, join(run, STORE_FILE)]);
        expect(killed.signal).toBe("SIGKILL");
        expect(statSync(join(run, `${STORE_FILE}-wal`)).size).toBeGreaterThan(0);
        remountTmpfs(dir);
        expect(readKeys(run, ["a", "late"])).toEqual(["value of a", "committed"]);
      });
    });

    it("a store left in WAL without its -shm (closed by an older SPADE): E_IO saying why, not 'cannot write'", () => {
      onDisk((run, dir) => {
        written(run, ["a"]);
        const old = new Database(join(run, STORE_FILE));
        old.pragma("journal_mode = WAL"); // SQLite removes -wal and -shm when it closes
        old.close();
        remountTmpfs(dir);
        expect(codeAndMessageOf(() => RunStore.open(run, "read"))).toEqual({
          code: "E_IO",
          message: `cannot read ${join(run, STORE_FILE)}: ${run} is read-only, and SQLite must create run.sqlite-shm beside the store to read it (copy ${run} to a writable disk and read the copy)`,
        });
        // What the message asks for works.
        const copy = join(tmp(), "copy");
        cpSync(run, copy, { recursive: true });
        expect(readKeys(copy, ["a"])).toEqual(["value of a"]);
      });
    });
  },
);
