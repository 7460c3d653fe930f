/**
 * The dashboard's store reader: on a read-only disk (a tmpfs remounted read-only; root only), and
 * a store another process holds locked, read by a command.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeAndMessageOf } from "../../test/assert.js";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { holdStore, release } from "../../test/hold-store.js";
import { mountTmpfs, remountTmpfs, skipWithoutTmpfs } from "../../test/tmpfs.js";
import { RunStore, STORE_FILE } from "../store/index.js";
import { DASHBOARD_READ, openRunDb, withRunDb } from "./store-read.js";

const tmp = tempDirsAfterEach("spade-dash-read-");

describe.skipIf(skipWithoutTmpfs())("openRunDb on a read-only disk", () => {
  it("reads a closed run; a store left in WAL without its -shm is E_IO saying why, not 'cannot write'", () => {
    const disk = tmp();
    const unmount = mountTmpfs(disk, "2m");
    try {
      const closed = join(disk, "closed");
      const old = join(disk, "old");
      for (const run of [closed, old]) {
        const store = RunStore.open(run, "create");
        store.transaction(() => store.setMeta("a", "1"));
        store.close();
      }
      // A store closed in WAL mode (by a SPADE before store/journal.ts): SQLite removes its -shm.
      const wal = new Database(join(old, STORE_FILE));
      wal.pragma("journal_mode = WAL");
      wal.close();
      remountTmpfs(disk);
      const db = openRunDb(closed);
      expect(db.prepare("SELECT value FROM meta WHERE key = 'a'").get()).toEqual({ value: "1" });
      db.close();
      expect(codeAndMessageOf(() => openRunDb(old))).toEqual({
        code: "E_IO",
        message: `cannot read ${join(old, STORE_FILE)}: ${old} is read-only, and SQLite must create run.sqlite-shm beside the store to read it (copy ${old} to a writable disk and read the copy)`,
      });
    } finally {
      unmount();
    }
  });
});

describe("a store another process holds locked", () => {
  it("is E_RUN_LOCKED with the dashboard's next step there, and a command's elsewhere", async () => {
    const dir = tmp();
    RunStore.open(dir, "create").close();
    const path = join(dir, STORE_FILE);
    const held = await holdStore(path, ["PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE"]);
    try {
      const locked = `${path} is locked by process ${held.pid} (node) (SQLITE_BUSY)`;
      expect([
        codeAndMessageOf(() => withRunDb(dir, () => 1)),
        codeAndMessageOf(() => withRunDb(dir, () => 1, { busyTimeoutMs: 0 })),
      ]).toEqual([
        { code: "E_RUN_LOCKED", message: `${locked} (${DASHBOARD_READ.nextStep})` },
        {
          code: "E_RUN_LOCKED",
          message: `${locked} (nothing committed is lost: let that process finish, end its open transaction (a sqlite3 shell: COMMIT or ROLLBACK) or stop it, then run the command again; a run continues with spade run --resume ${dir})`,
        },
      ]);
    } finally {
      await release(held);
    }
  });
});
