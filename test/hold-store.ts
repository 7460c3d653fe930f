/**
 * @module test/hold-store
 * TEST DOUBLE: another process holding a SQLite file's locks, as a `sqlite3` shell with an open
 * transaction or a writer in exclusive locking mode does: it opens the file, runs statements,
 * and holds what they took until released.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";

/** A process that opens the SQLite file `path`, runs `statements` and holds them until `release`. */
export async function holdStore(path: string, statements: string[]): Promise<ChildProcess> {
  const script = `
    const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
    const db = new Database(${JSON.stringify(path)});
    for (const sql of ${JSON.stringify(statements)}) db.exec(sql);
    process.stdout.write("holding\\n");
    process.stdin.on("data", () => { if (db.inTransaction) db.exec("ROLLBACK"); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the holding process exited with ${code}`)));
  });
  return child;
}

/** Lets `holdStore`'s process roll back and waits for it to exit. */
export async function release(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin?.write("done\n");
  await exited;
}
