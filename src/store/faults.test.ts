/**
 * The run store against an unlucky disk and a second writer: the folder lock, a damaged
 * run.sqlite, a full disk, a read-only folder; each a coded error with a next step. The full-disk
 * and read-only cases mount a small tmpfs (root only; skipped with the reason otherwise).
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { storeIoError } from "./io-errors.js";
import { HOLDER_FILE, readHolder } from "./lock.js";
import { RunStore, STORE_FILE } from "./run-store.js";
import { EMPTY_STATS, type EnvironmentRow } from "./types.js";
import { codeAndMessageOf, codeOf, thrown } from "../../test/assert.js";
import { fileTempDir, releasedAfterEach, tempDirsAfterEach } from "../../test/cleanup.js";
import { holdStore, release } from "../../test/hold-store.js";

const tmp = tempDirsAfterEach("spade-store-faults-");
// Registered after tmp's: vitest runs after-hooks last-registered first, so a tmpfs is unmounted
// before its folder is removed.
const mounts = releasedAfterEach((mount: string) => execFileSync("umount", [mount]));

const env = (id: string, code: string): EnvironmentRow => ({
  id,
  name: "x",
  skill: "Logical Deduction",
  description: "d",
  code,
  meta: { name: "x", skill: "Logical Deduction", description: "d", maxTurns: 3, tools: [] },
  source: "designer",
  createdStep: 0,
  slot: 1,
  docId: null,
  hint: null,
  stats: EMPTY_STATS,
});

/** Mounts a tmpfs of `size` at a fresh folder; null (with the reason) when this machine does not allow it. */
function mountTmpfs(size: string, readOnly = false): string | null {
  const dir = tmp();
  try {
    execFileSync(
      "mount",
      ["-t", "tmpfs", "-o", `size=${size}${readOnly ? ",ro" : ""}`, "tmpfs", dir],
      { stdio: "ignore" },
    );
  } catch {
    return null;
  }
  mounts.push(dir);
  return dir;
}
const CAN_MOUNT = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = fileTempDir("spade-mount-probe-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe]);
    return true;
  } catch {
    return false;
  }
})();

describe("the run folder lock", () => {
  it("refuses a second writer with E_RUN_LOCKED naming the holder's PID, host and start; readers are let in", () => {
    const dir = tmp();
    const first = RunStore.open(dir, "create");
    const holder = readHolder(dir);
    expect(holder).toEqual({
      pid: process.pid,
      host: hostname(),
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const err = codeAndMessageOf(() => RunStore.open(dir, "resume"));
    expect(err.code).toBe("E_RUN_LOCKED");
    expect(err.message).toBe(
      `${dir} is in use by process ${process.pid} on ${hostname()} (since ${holder!.startedAt}) (wait for process ${process.pid} to finish or stop it, or give another folder)`,
    );
    expect(codeOf(() => RunStore.open(dir, "create"))).toBe("E_RUN_LOCKED");
    const reader = RunStore.open(dir, "read");
    expect(reader.getMeta("schema_version")).toBe("1");
    reader.close();
    first.close();
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(false);
    const again = RunStore.open(dir, "resume");
    expect(again.tookOverFrom).toBeNull();
    again.close();
  });

  it("takes over the folder of a process that was killed, and says whose it was", () => {
    const dir = tmp();
    RunStore.open(dir, "create").close();
    // What a killed holder leaves: its record (the kernel dropped its lock with the process).
    const dead = { pid: 999_999_999, host: hostname(), startedAt: "2026-01-01T00:00:00.000Z" };
    writeFileSync(join(dir, HOLDER_FILE), JSON.stringify(dead));
    const store = RunStore.open(dir, "resume");
    expect(store.tookOverFrom).toEqual(dead);
    expect(readHolder(dir)?.pid).toBe(process.pid);
    store.close();
  });

  it("a store that fails to open releases the lock", () => {
    const dir = tmp();
    writeFileSync(join(dir, STORE_FILE), "not a database, just text ".repeat(200));
    expect(codeOf(() => RunStore.open(dir, "resume"))).toBe("E_STORE_CORRUPT");
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(false);
    expect(codeOf(() => RunStore.open(dir, "resume"))).toBe("E_STORE_CORRUPT"); // not E_RUN_LOCKED
  });
});

describe("a damaged run.sqlite", () => {
  const written = () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.transaction(() => {
      for (let i = 0; i < 200; i++) store.insertEnvironment(env(`e${i}`, "x".repeat(2_000)));
    });
    store.close();
    return dir;
  };

  it("overwritten or cut to a few bytes: E_STORE_CORRUPT on resume and on read, with a next step", () => {
    const dir = written();
    writeFileSync(join(dir, STORE_FILE), Buffer.alloc(8192, 0xa5));
    for (const mode of ["resume", "read"] as const) {
      const err = codeAndMessageOf(() => RunStore.open(dir, mode));
      expect(err.code).toBe("E_STORE_CORRUPT");
      expect(err.message).toMatch(
        /run\.sqlite is damaged or is not a run store \(SQLITE_NOTADB: file is not a database\) \(restore it from a backup, or start a new run in another folder \(--out\)/,
      );
    }
    const cut = written();
    truncateSync(join(cut, STORE_FILE), 100);
    expect(codeOf(() => RunStore.open(cut, "resume"))).toBe("E_STORE_CORRUPT");
  });

  it("truncated mid-file (at a page boundary): E_STORE_CORRUPT", () => {
    const dir = written();
    const size = readFileSync(join(dir, STORE_FILE)).length;
    truncateSync(join(dir, STORE_FILE), Math.floor(size / 2 / 4096) * 4096);
    for (const mode of ["resume", "read"] as const) {
      const err = codeAndMessageOf(() => RunStore.open(dir, mode));
      expect(err.code).toBe("E_STORE_CORRUPT");
      expect(err.message).toContain("(SQLITE_CORRUPT: database disk image is malformed)");
    }
  });

  it("cut to 0 bytes, or another program's database: E_STORE_CORRUPT, and the file is left as it was", () => {
    const empty = written();
    truncateSync(join(empty, STORE_FILE), 0);
    const foreign = tmp();
    const other = new Database(join(foreign, STORE_FILE));
    other.exec("CREATE TABLE notes (text TEXT)");
    other.close();
    for (const dir of [empty, foreign]) {
      const before = readFileSync(join(dir, STORE_FILE));
      for (const mode of ["resume", "read"] as const) {
        const err = codeAndMessageOf(() => RunStore.open(dir, mode));
        expect(err).toEqual({
          code: "E_STORE_CORRUPT",
          message: `${join(dir, STORE_FILE)} is damaged or is not a run store (it has no meta table: empty, or another program's database) (restore it from a backup, or start a new run in another folder (--out); \`sqlite3 run.sqlite .recover\` may save what is left)`,
        });
      }
      expect(readFileSync(join(dir, STORE_FILE))).toEqual(before);
    }
  });

  it("a meta table without schema_version: E_STORE_CORRUPT, and the file is left as it was", () => {
    const dir = written();
    const db = new Database(join(dir, STORE_FILE));
    db.prepare("DELETE FROM meta WHERE key = 'schema_version'").run();
    db.close();
    const before = readFileSync(join(dir, STORE_FILE));
    for (const mode of ["resume", "read"] as const) {
      expect(codeAndMessageOf(() => RunStore.open(dir, mode))).toEqual({
        code: "E_STORE_CORRUPT",
        message: `${join(dir, STORE_FILE)} is damaged or is not a run store (its meta table has no schema_version: cut short, or edited) (restore it from a backup, or start a new run in another folder (--out); \`sqlite3 run.sqlite .recover\` may save what is left)`,
      });
    }
    expect(readFileSync(join(dir, STORE_FILE)).equals(before)).toBe(true);
  });

  it("another schema version: E_CONFIG, and a resume writes nothing into the file", () => {
    const dir = written();
    const db = new Database(join(dir, STORE_FILE));
    db.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
    db.close();
    const before = readFileSync(join(dir, STORE_FILE));
    for (const mode of ["resume", "read"] as const) {
      expect(codeAndMessageOf(() => RunStore.open(dir, mode))).toEqual({
        code: "E_CONFIG",
        message: `${join(dir, STORE_FILE)} has schema version 2, this SPADE reads 1 (use the SPADE version that wrote the run)`,
      });
    }
    // Not switched to WAL, not given this version's columns: the newer SPADE reads it as it was.
    expect([
      readFileSync(join(dir, STORE_FILE)).equals(before),
      existsSync(`${join(dir, STORE_FILE)}-wal`),
    ]).toEqual([true, false]);
  });
});

describe("a store another process holds locked", () => {
  const locked = (dir: string, pid: number | undefined) => ({
    code: "E_RUN_LOCKED",
    message: `${join(dir, STORE_FILE)} is locked by process ${pid} (node) (SQLITE_BUSY) (nothing committed is lost: let that process finish, end its open transaction (a sqlite3 shell: COMMIT or ROLLBACK) or stop it, then run the command again; a run continues with spade run --resume ${dir})`,
  });

  // The wait is BUSY_TIMEOUT_MS (5 s) by default; a short one here keeps the unit project quick.
  const WAIT_MS = 300;

  it("a resume while a read transaction is open on the closed run: E_RUN_LOCKED naming the reader after the wait, nothing written", async () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.transaction(() => store.insertEnvironment(env("e0", "x")));
    store.close(); // a closed run is in rollback-journal mode: a resume switches it back to WAL
    const path = join(dir, STORE_FILE);
    const before = readFileSync(path);
    const reader = await holdStore(path, ["BEGIN", "SELECT * FROM environments"]);
    try {
      const started = Date.now();
      const err = codeAndMessageOf(() => RunStore.open(dir, "resume", { busyTimeoutMs: WAIT_MS }));
      const waitedMs = Date.now() - started;
      expect([err, waitedMs >= WAIT_MS - 10, waitedMs < 10_000]).toEqual([
        locked(dir, reader.pid),
        true,
        true,
      ]);
      expect([readFileSync(path).equals(before), readHolder(dir)]).toEqual([true, null]);
    } finally {
      await release(reader);
    }
    const resumed = RunStore.open(dir, "resume");
    expect(resumed.environments().map((e) => e.id)).toEqual(["e0"]);
    resumed.close();
  });

  it("a write while another process holds the write lock: E_RUN_LOCKED, and it commits once let go", async () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create", { busyTimeoutMs: WAIT_MS });
    store.transaction(() => store.insertEnvironment(env("e0", "x")));
    const writer = await holdStore(join(dir, STORE_FILE), ["BEGIN IMMEDIATE"]);
    try {
      expect(
        codeAndMessageOf(() => store.transaction(() => store.insertEnvironment(env("e1", "x")))),
      ).toEqual(locked(dir, writer.pid));
    } finally {
      await release(writer);
    }
    store.transaction(() => store.insertEnvironment(env("e1", "x")));
    expect(store.environments().map((e) => e.id)).toEqual(["e0", "e1"]);
    store.close();
  });
});

describe("a run.sqlite that is not a file", () => {
  const notAFile = (dir: string, kind: string) => ({
    code: "E_IO",
    message: `${join(dir, STORE_FILE)} is ${kind}, not a file: a run's store is the SQLite file run.sqlite (give the folder a run was written to (--out); if that is ${dir}, its store was replaced: move ${join(dir, STORE_FILE)} out of the way and restore run.sqlite from a backup)`,
  });

  it("a folder: E_IO saying so, not SQLite's disk I/O error; the folder's lock is released", () => {
    const dir = tmp();
    mkdirSync(join(dir, STORE_FILE));
    expect(
      (["resume", "read"] as const).map((mode) => codeAndMessageOf(() => RunStore.open(dir, mode))),
    ).toEqual([notAFile(dir, "a folder"), notAFile(dir, "a folder")]);
    expect(readdirSync(dir)).toEqual([STORE_FILE]);
  });

  it("a FIFO: E_IO at once, where opening it to read waited for a writer forever", () => {
    const dir = tmp();
    execFileSync("mkfifo", [join(dir, STORE_FILE)]);
    expect(
      (["resume", "read"] as const).map((mode) => codeAndMessageOf(() => RunStore.open(dir, mode))),
    ).toEqual([notAFile(dir, "a named pipe (FIFO)"), notAFile(dir, "a named pipe (FIFO)")]);
  });
});

describe("disk and permission failures", () => {
  it("maps SQLite's and Node's codes: full disk, read-only, other I/O; leaves constraint errors alone", () => {
    // A real SQLITE_FULL: a database whose page budget is spent.
    const db = new Database(":memory:");
    db.pragma("max_page_count = 2");
    const full = thrown(() =>
      db.exec("CREATE TABLE t (x TEXT); INSERT INTO t VALUES (randomblob(100000));"),
    );
    expect((full as { code: string }).code).toBe("SQLITE_FULL");
    const path = join("/runs", "r1", STORE_FILE);
    const mapped = storeIoError(full, path)!;
    expect(mapped.code).toBe("E_DISK_FULL");
    expect(mapped.message).toBe(
      "the disk holding /runs/r1/run.sqlite is full (SQLITE_FULL: database or disk is full) (nothing committed is lost: free space and continue with spade run --resume /runs/r1, or copy /runs/r1 to a disk with space and continue there with spade run --resume <the copy>)",
    );
    const sys = (code: string) =>
      Object.assign(new Error(`${code}: failed, write`), { code, syscall: "write" });
    expect(
      [sys("ENOSPC"), sys("EDQUOT"), sys("EROFS"), sys("EACCES"), sys("EIO")].map(
        (e) => storeIoError(e, path)?.code,
      ),
    ).toEqual(["E_DISK_FULL", "E_DISK_FULL", "E_IO", "E_IO", "E_IO"]);
    // A file that is not a run folder's says how its own command continues.
    expect(storeIoError(sys("ENOSPC"), "/logs/tb/events", "run it again")?.message).toBe(
      "the disk holding /logs/tb/events is full (ENOSPC: failed, write) (run it again)",
    );
    // The code is said once: Node's messages start with it, SQLite's do not.
    const sqliteFull = Object.assign(new Error("database or disk is full"), {
      code: "SQLITE_FULL",
    });
    expect(storeIoError(sqliteFull, "/logs/tb/events", "run it again")?.message).toBe(
      "the disk holding /logs/tb/events is full (SQLITE_FULL: database or disk is full) (run it again)",
    );
    const unique = Object.assign(new Error("UNIQUE constraint failed"), {
      code: "SQLITE_CONSTRAINT_PRIMARYKEY",
    });
    expect(storeIoError(unique, path)).toBeNull();
    expect(storeIoError(new TypeError("x"), path)).toBeNull();
  });

  it.skipIf(!CAN_MOUNT)(
    "a disk that fills during a run: E_DISK_FULL, and every committed row is kept (tmpfs of 512 KiB)",
    () => {
      const disk = mountTmpfs("512k")!;
      const dir = join(disk, "run");
      const store = RunStore.open(dir, "create");
      let committed = 0;
      const err = codeAndMessageOf(() => {
        for (let i = 0; i < 1_000; i++) {
          store.transaction(() => store.insertEnvironment(env(`e${i}`, "y".repeat(20_000))));
          committed++;
        }
      });
      expect(err.code).toBe("E_DISK_FULL");
      expect(err.message).toContain(
        `copy ${dir} to a disk with space and continue there with spade run --resume <the copy>`,
      );
      expect(committed).toBeGreaterThan(3);
      store.close();
      // Copied elsewhere, the run resumes with what was committed.
      const elsewhere = join(tmp(), "run");
      mkdirSync(elsewhere);
      for (const f of readdirSync(dir))
        if (f.startsWith(STORE_FILE)) writeFileSync(join(elsewhere, f), readFileSync(join(dir, f)));
      const resumed = RunStore.open(elsewhere, "resume");
      expect(resumed.environments()).toHaveLength(committed);
      resumed.close();
    },
  );

  it.skipIf(!CAN_MOUNT)(
    "a read-only folder: E_IO naming the folder, for a new run and a resume; a closed run reads",
    () => {
      const ro = mountTmpfs("64k", true)!;
      const create = codeAndMessageOf(() => RunStore.open(join(ro, "run"), "create"));
      expect(create.code).toBe("E_IO");
      expect(create.message).toMatch(
        /^cannot write .*run\.sqlite: the folder or file is read-only or not ours \(EROFS: /,
      );
      // A run written on a disk that is then remounted read-only.
      const disk = mountTmpfs("1m")!;
      RunStore.open(join(disk, "run"), "create").close();
      execFileSync("mount", ["-o", "remount,ro", disk]);
      const resume = codeAndMessageOf(() => RunStore.open(join(disk, "run"), "resume"));
      expect(resume.code).toBe("E_IO");
      expect(resume.message).toContain("read-only or not ours");
      // A closed store is one file, which reads there (journal.test.ts: what cannot, and why).
      const reader = RunStore.open(join(disk, "run"), "read");
      expect(reader.getMeta("schema_version")).toBe("1");
      reader.close();
    },
  );

  it.skipIf(!CAN_MOUNT)(
    "a folder made immutable under an open run: close does not throw, and the lock is released",
    () => {
      const dir = join(mountTmpfs("1m")!, "run");
      const store = RunStore.open(dir, "create");
      const chattr = (flag: string) =>
        execFileSync("sh", ["-c", `chattr ${flag} "$0" "$0"/*`, dir], { stdio: "ignore" });
      chattr("+i"); // no file in it can be created, removed or opened to write any more
      try {
        // Closing must not hide the failure that stopped the run behind its own (the lock
        // record cannot be removed, and stays).
        expect(codeAndMessageOf(() => store.close())).toEqual({ code: "returned", message: "" });
      } finally {
        chattr("-i");
      }
      const again = RunStore.open(dir, "resume");
      expect(again.tookOverFrom?.pid).toBe(process.pid);
      again.close();
    },
  );
});

describe("a run folder deleted or moved under its writer", () => {
  const gone = (dir: string) => ({
    code: "E_NOT_FOUND",
    message: `the run in ${dir} is gone: its folder or run.sqlite was deleted or moved while the run wrote to it (if it was moved, continue it with spade run --resume <its new place>; if it was deleted, what it held is lost: restore ${dir} from a backup and continue with spade run --resume ${dir}, or start a new run)`,
  });

  it("deleted: the next transaction, and a write of another file of the folder, are E_NOT_FOUND saying so", () => {
    const dir = join(tmp(), "run");
    const store = RunStore.open(dir, "create");
    store.transaction(() => store.insertEnvironment(env("e0", "x")));
    rmSync(dir, { recursive: true });
    const next = () => store.transaction(() => store.insertEnvironment(env("e1", "x")));
    const metrics = join(dir, "metrics.jsonl");
    const append = thrown(() => appendFileSync(metrics, "{}\n"));
    expect([
      codeAndMessageOf(next),
      storeIoError(append, metrics)?.code,
      storeIoError(append, metrics)?.message,
    ]).toEqual([gone(dir), gone(dir).code, gone(dir).message]);
    // Not for a file of another command's folder, nor for a folder that could not be made.
    const mkdir = Object.assign(new Error("ENOENT: no such file or directory, mkdir"), {
      code: "ENOENT",
      syscall: "mkdir",
    });
    expect([
      storeIoError(append, metrics, "run it again")?.message,
      storeIoError(mkdir, join(dir, STORE_FILE))?.code,
    ]).toEqual([
      `reading or writing ${metrics} failed (ENOENT: no such file or directory, open '${metrics}') (check the disk holding ${dir})`,
      "E_IO",
    ]);
    expect(codeAndMessageOf(() => store.close())).toEqual({ code: "returned", message: "" });
  });

  it("moved: E_NOT_FOUND, and the run resumes from its new place with every committed row", () => {
    const dir = join(tmp(), "run");
    const store = RunStore.open(dir, "create");
    store.transaction(() => store.insertEnvironment(env("e0", "x")));
    const moved = join(tmp(), "moved");
    renameSync(dir, moved);
    expect(
      codeAndMessageOf(() => store.transaction(() => store.insertEnvironment(env("e1", "x")))),
    ).toEqual(gone(dir));
    store.close();
    const resumed = RunStore.open(moved, "resume");
    expect([resumed.environments().map((e) => e.id), resumed.tookOverFrom?.pid]).toEqual([
      ["e0"],
      process.pid,
    ]);
    resumed.close();
  });
});

describe("a start that failed before its first step", () => {
  it("is removed by discardUnstarted; a run that began a step is kept", () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.setMeta("config", "{}");
    store.close();
    expect(RunStore.discardUnstarted(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    RunStore.open(dir, "create").close(); // the folder takes a new run

    const begun = tmp();
    const s2 = RunStore.open(begun, "create");
    s2.beginStep(0);
    s2.close();
    expect(RunStore.discardUnstarted(begun)).toBe(false);
    expect(existsSync(join(begun, STORE_FILE))).toBe(true);
  });
});
