/**
 * A run folder deleted and made again for another run while the first run's process still writes
 * (`rm -rf out && spade run --out out`): the old writer must stop, and its stop (a close, or its
 * process ending with the store open) must leave the new run's files alone. The new run is a
 * second process, killed as by `kill -9`, whose commits since its last checkpoint live only in its
 * WAL: a `-wal` deleted by name loses them.
 */
import Database from "better-sqlite3";
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { identityOf, isSameFile } from "./file-identity.js";
import { HOLDER_FILE } from "./lock.js";
import { RunStore, STORE_FILE } from "./run-store.js";
import { codeAndMessageOf } from "../../test/assert.js";
import { releasedAfterEach, tempDirsAfterEach } from "../../test/cleanup.js";

const tmp = tempDirsAfterEach("spade-store-identity-");
const children = releasedAfterEach((child: ChildProcess) => child.kill("SIGKILL"));

/** Rows the new run commits, one transaction each, none checkpointed. */
const NEW_ROWS = 100;

/**
 * Starts the new run's writer on `path` (a test double: a WAL-mode database with `NEW_ROWS`
 * committed rows and automatic checkpoints off), resolved once they are committed.
 */
async function startNewWriter(path: string): Promise<ChildProcess> {
  const script = `
    const db = new (require("better-sqlite3"))(process.argv[1]);
    db.pragma("journal_mode = WAL");
    db.pragma("wal_autocheckpoint = 0");
    db.exec("CREATE TABLE steps (step INTEGER PRIMARY KEY)");
    const insert = db.prepare("INSERT INTO steps (step) VALUES (?)");
    for (let i = 0; i < ${NEW_ROWS}; i++) insert.run(i);
    process.stdout.write("committed\\n");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", script, path], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the new writer exited with ${code}`)));
  });
  return child;
}

/**
 * Starts an old run's writer on `path` (a test double: a WAL-mode database with one commit) that,
 * told to on stdin, ends as a process ends with work left undone: its event loop runs dry with the
 * database still open, which better-sqlite3 then closes through SQLite's close.
 */
async function startOldWriter(path: string): Promise<ChildProcess> {
  const script = `
    const db = new (require("better-sqlite3"))(process.argv[1]);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE old (i INTEGER)");
    db.prepare("INSERT INTO old (i) VALUES (1)").run();
    globalThis.kept = db;
    process.stdout.write("committed\\n");
    process.stdin.once("data", () => process.stdin.destroy());`;
  const child = spawn(process.execPath, ["-e", script, path], {
    cwd: process.cwd(),
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  await new Promise<void>((resolve) => child.stdout?.once("data", () => resolve()));
  return child;
}

/** Tells an old writer to end, and waits for it to be gone. */
async function endOldWriter(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin?.write("end\n");
  await exited;
}

/** Kills `child` as `kill -9` does and waits for it to be gone. */
async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe("a run folder made again for another run under its writer", () => {
  /** The old run's store in `dir`, written to, then its folder deleted and made again, empty. */
  function oldRunThenNewFolder(dir: string): RunStore {
    const old = RunStore.open(dir, "create");
    old.transaction(() => old.setMeta("run", "old"));
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    return old;
  }

  it("the old writer's next transaction is E_NOT_FOUND saying the folder holds another run", () => {
    const dir = join(tmp(), "out");
    const old = oldRunThenNewFolder(dir);
    const created = RunStore.open(dir, "create");
    created.transaction(() => created.setMeta("run", "new"));

    expect(codeAndMessageOf(() => old.transaction(() => old.setMeta("run", "again")))).toEqual({
      code: "E_NOT_FOUND",
      message: `the run in ${dir} is gone: its folder or run.sqlite was deleted or moved while the run wrote to it, and ${dir} now holds another run (leave ${dir} to that run; if this one was moved, continue it with spade run --resume <its new place>; if it was deleted, what it held is lost: restore it from a backup to another folder and continue it with spade run --resume <that folder>, or start a new run)`,
    });
    old.close();
    created.close();
    const reread = RunStore.open(dir, "read");
    expect(reread.getMeta("run")).toBe("new");
    reread.close();
  });

  it("closing the old writer leaves the new run's WAL, -shm, lock record and every commit", async () => {
    const dir = join(tmp(), "out");
    const old = oldRunThenNewFolder(dir);
    const holder = `${JSON.stringify({ pid: 1, host: "new", startedAt: "2026-01-01T00:00:00.000Z" })}\n`;
    writeFileSync(join(dir, HOLDER_FILE), holder); // the new run's lock record
    const path = join(dir, STORE_FILE);
    const writer = await startNewWriter(path);

    expect(codeAndMessageOf(() => old.close())).toEqual({ code: "returned", message: "" });
    expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`)]).toEqual([true, true]);
    expect(readFileSync(join(dir, HOLDER_FILE), "utf8")).toBe(holder);

    await killHard(writer);
    const db = new Database(path, { readonly: true });
    const steps = db.prepare("SELECT step FROM steps ORDER BY step").pluck().all();
    db.close();
    expect(steps).toEqual(Array.from({ length: NEW_ROWS }, (_, i) => i));
  });

  it("an old writer's process that ends with its store open leaves the new run's WAL alone", async () => {
    // What this rests on: better-sqlite3 closes open databases when the process ends (SQLite's
    // close checkpoints and deletes the WAL: the control), and SQLite's close skips both for a file
    // no longer at its path (SQLITE_FCNTL_HAS_MOVED).
    const control = join(tmp(), STORE_FILE);
    await endOldWriter(await startOldWriter(control));
    const dir = join(tmp(), "out");
    mkdirSync(dir);
    const path = join(dir, STORE_FILE);
    const old = await startOldWriter(path);
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    const writer = await startNewWriter(path);
    await endOldWriter(old);
    expect([
      existsSync(`${control}-wal`),
      existsSync(`${path}-wal`),
      existsSync(`${path}-shm`),
    ]).toEqual([false, true, true]);

    await killHard(writer);
    const db = new Database(path, { readonly: true });
    const steps = db.prepare("SELECT step FROM steps ORDER BY step").pluck().all();
    db.close();
    expect(steps).toEqual(Array.from({ length: NEW_ROWS }, (_, i) => i));
  });

  it("a store still in place closes into one file, as before", () => {
    const dir = tmp();
    const store = RunStore.open(dir, "create");
    store.transaction(() => store.setMeta("run", "one"));
    store.close();
    const files = [STORE_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`];
    expect(files.map((f) => existsSync(join(dir, f)))).toEqual([true, false, false]);
  });
});

describe("isSameFile", () => {
  it("is true for the file the identity was taken from, false for another at its path or none", () => {
    const dir = tmp();
    const path = join(dir, "f");
    writeFileSync(path, "a");
    const identity = identityOf(path);
    const same = isSameFile(path, identity);
    const notDir = isSameFile(join(path, "x"), identity);
    const fd = openSync(path, "r"); // held open, as a store's file is: its inode is not reused
    rmSync(path);
    const none = isSameFile(path, identity);
    writeFileSync(path, "a");
    const another = isSameFile(path, identity);
    closeSync(fd);
    expect([same, notDir, none, another]).toEqual([true, false, false, false]);
  });
});
