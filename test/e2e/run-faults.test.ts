/**
 * `spade run` against a second writer, a bad start, a damaged store, a full disk and its folder
 * deleted or moved under it, and a finished run read from a read-only disk, through the real,
 * built command with the fake OpenAI-compatible server (a test double): exit codes and the coded
 * message on stderr. The disk cases mount a tmpfs (root only; skipped otherwise).
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readHolder, RunStore } from "../../src/store/index.js";
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeReply,
} from "../fakes/openai-server.js";
import { spade, spadeAsync } from "./cli.js";
import { fileTempDir } from "../cleanup.js";
import { holdStore, release } from "../hold-store.js";
import { remountTmpfs } from "../tmpfs.js";

const root = fileTempDir("spade-run-faults-");
const mounts: string[] = [];
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  // The mount points are folders of root, removed with it after the file.
  for (const m of mounts.splice(0)) execFileSync("umount", ["-l", m]);
});

/** A one-step inference-only run with one design slot and one play, against `baseURL`. */
const runArgs = (baseURL: string, out: string, extra: string[] = []) => [
  "run",
  "--out",
  out,
  "--no-train",
  "--base-url",
  baseURL,
  "--model",
  "m",
  "--steps",
  "1",
  "--designs-per-step",
  "1",
  "--plays",
  "1",
  "--hinted-plays",
  "0",
  "--max-attempts",
  "1",
  "--concurrency",
  "1",
  ...extra,
];

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("spade run: the run folder lock", () => {
  it("a second process gets E_RUN_LOCKED naming the first's PID; after kill -9 the folder is taken over", async () => {
    let mode: "hang" | "fail" = "hang";
    server = await startFakeOpenAIServer(
      (): FakeReply =>
        mode === "hang"
          ? { kind: "hang" }
          : { kind: "status", status: 400, message: "no such model" },
    );
    const out = join(root, "locked");
    const first = spadeAsync(runArgs(server.baseURL, out));
    await waitFor(() => server!.requests.length > 0); // the designer's request hangs: the run holds its folder
    const pid = first.child.pid!;
    expect(readHolder(out)?.pid).toBe(pid);

    const second = await spade(["run", "--resume", out]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(
        `^spade: E_RUN_LOCKED: ${out} is in use by process ${pid} on ${hostname()} \\(since \\d{4}-[^)]+\\) \\(wait for process ${pid} to finish or stop it, or give another folder\\)$`,
        "m",
      ),
    );
    expect(second.stderr).not.toContain("    at ");
    const fresh = await spade(runArgs(server.baseURL, out));
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain(`E_RUN_LOCKED: ${out} is in use by process ${pid}`);

    first.child.kill("SIGKILL");
    await first.done;
    mode = "fail";
    const resumed = await spade(["run", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const store = RunStore.open(out, "read");
    expect(store.doneSteps()).toBe(1);
    expect(store.episodes().map((e) => e.failureCode)).toEqual(["E_POLICY_HTTP"]);
    store.close();
    expect(readHolder(out)).toBeNull();
  });
});

describe("spade run --resume: a store another process holds", () => {
  it("a read transaction left open: E_RUN_LOCKED naming it after the busy timeout, nothing written; resumed once it lets go", async () => {
    server = await startFakeOpenAIServer(() => ({ kind: "status", status: 400 }));
    const out = join(root, "read-held");
    const first = await spade(runArgs(server.baseURL, out));
    expect(first.code, first.stderr).toBe(0);
    const path = join(out, "run.sqlite");
    const before = readFileSync(path);
    const reader = await holdStore(path, ["BEGIN", "SELECT * FROM steps"]);
    let refused: Awaited<ReturnType<typeof spade>>;
    try {
      refused = await spade(["run", "--resume", out, "--steps", "2"]);
    } finally {
      await release(reader);
    }
    expect([refused.code, refused.stderr.trimEnd().split("\n").at(-1)]).toEqual([
      2,
      `spade: E_RUN_LOCKED: ${path} is locked by process ${reader.pid} (node) (SQLITE_BUSY) (nothing committed is lost: let that process finish, end its open transaction (a sqlite3 shell: COMMIT or ROLLBACK) or stop it, then run the command again; a run continues with spade run --resume ${out})`,
    ]);
    expect([readFileSync(path).equals(before), readHolder(out)]).toEqual([true, null]);
    const resumed = await spade(["run", "--resume", out, "--steps", "2"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const store = RunStore.open(out, "read");
    expect(store.doneSteps()).toBe(2);
    store.close();
  });
});

describe("spade run: a server that never answers", () => {
  it("gives up each request after --request-timeout within --retry-budget, records the failures and finishes", async () => {
    server = await startFakeOpenAIServer(() => ({ kind: "hang" }));
    const out = join(root, "hang");
    const started = Date.now();
    const r = await spade(
      runArgs(server.baseURL, out, [
        "--request-timeout",
        "0.5",
        "--retry-budget",
        "2",
        "--max-retries",
        "1",
      ]),
    );
    const wallMs = Date.now() - started;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^spade: model server: E_POLICY_TIMEOUT: .* gave no answer within 500 ms; retry 1 of 1 in 0\.\d s \(retry budget left 1\.\d s\)$/m,
    );
    const store = RunStore.open(out, "read");
    expect(store.doneSteps()).toBe(1);
    expect(store.episodes().map((e) => e.failureCode)).toEqual(["E_POLICY_TIMEOUT"]);
    expect(store.designs().map((d) => d.completion)).toEqual([""]);
    store.close();
    // Two requests (the design, the play), each at most its 2 s budget, plus start-up.
    expect(server.requests).toHaveLength(4);
    expect(wallMs).toBeLessThan(15_000);
  });
});

describe("spade run: a start that fails", () => {
  it("checks the corpus before creating anything, then the same --out takes a run", async () => {
    server = await startFakeOpenAIServer(() => ({ kind: "status", status: 400 }));
    const out = join(root, "no-corpus");
    const r = await spade(runArgs(server.baseURL, out, ["--corpus", join(root, "missing.jsonl")]));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `spade: E_IO: the corpus ${join(root, "missing.jsonl")} (--corpus) does not exist (give a readable .jsonl, .jsonl.gz or .parquet file, a folder of them or of .txt/.md files, or "default")\n`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("removes the store of a start that failed after creating it (a corpus with no usable documents)", async () => {
    server = await startFakeOpenAIServer(() => ({ kind: "status", status: 400 }));
    const corpus = join(root, "empty.jsonl");
    writeFileSync(corpus, '{"title": "no text field"}\n');
    const out = join(root, "bad-corpus");
    const r = await spade(runArgs(server.baseURL, out, ["--corpus", corpus]));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `spade run: the run never began a step; removed what it created in ${out}\n`,
    );
    expect(r.stderr).toContain("spade: E_CONFIG: corpus");
    expect(existsSync(out)).toBe(false);
    const again = await spade(runArgs(server.baseURL, out));
    expect(again.code, again.stderr).toBe(0);
  });
});

describe("spade run: a damaged store", () => {
  it("a run.sqlite overwritten with other bytes: E_STORE_CORRUPT on --resume and on runs show, no stack trace", async () => {
    const out = join(root, "corrupt");
    mkdirSync(out);
    writeFileSync(join(out, "run.sqlite"), Buffer.alloc(16_384, 0x5a));
    for (const args of [
      ["run", "--resume", out],
      ["runs", "show", out],
    ]) {
      const r = await spade(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^spade: E_STORE_CORRUPT: .*run\.sqlite is damaged or is not a run store \(SQLITE_NOTADB: file is not a database\) \(restore it from a backup/,
      );
      expect(r.stderr).not.toContain("    at ");
    }
  });

  it("a run.sqlite cut to 0 bytes: E_STORE_CORRUPT on --resume and on runs show, not a stack trace", async () => {
    const out = join(root, "empty-store");
    mkdirSync(out);
    writeFileSync(join(out, "run.sqlite"), "");
    for (const args of [
      ["run", "--resume", out],
      ["runs", "show", out],
    ]) {
      const r = await spade(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `spade: E_STORE_CORRUPT: ${join(out, "run.sqlite")} is damaged or is not a run store (it has no meta table: empty, or another program's database) (restore it from a backup, or start a new run in another folder (--out); \`sqlite3 run.sqlite .recover\` may save what is left)\n`,
      );
    }
  });

  it("a run.sqlite whose meta table lost its schema_version: E_STORE_CORRUPT, the file left as it was", async () => {
    const out = join(root, "unversioned");
    const store = RunStore.open(out, "create");
    store.close();
    const db = new Database(join(out, "run.sqlite"));
    db.prepare("DELETE FROM meta WHERE key = 'schema_version'").run();
    db.close();
    const before = readFileSync(join(out, "run.sqlite"));
    for (const args of [
      ["run", "--resume", out],
      ["runs", "show", out],
      ["runs", "export", out, join(root, "unversioned-tb"), "--to", "tensorboard"],
    ]) {
      const r = await spade(args);
      expect([r.code, r.stderr], args.join(" ")).toEqual([
        2,
        `spade: E_STORE_CORRUPT: ${join(out, "run.sqlite")} is damaged or is not a run store (its meta table has no schema_version: cut short, or edited) (restore it from a backup, or start a new run in another folder (--out); \`sqlite3 run.sqlite .recover\` may save what is left)\n`,
      ]);
    }
    expect(readFileSync(join(out, "run.sqlite")).equals(before)).toBe(true);
  });

  it("a run.sqlite that is a folder or a FIFO: E_IO saying what it is, not a disk I/O error or a hang", async () => {
    for (const [name, kind] of [
      ["folder-store", "a folder"],
      ["fifo-store", "a named pipe (FIFO)"],
    ] as const) {
      const out = join(root, name);
      const path = join(out, "run.sqlite");
      mkdirSync(out);
      if (kind === "a folder") mkdirSync(path);
      else execFileSync("mkfifo", [path]);
      for (const args of [
        ["run", "--resume", out],
        ["runs", "show", out],
        ["runs", "export", out, join(root, `${name}-tb`), "--to", "tensorboard"],
      ]) {
        const r = await spade(args);
        expect([r.code, r.stderr], args.join(" ")).toEqual([
          2,
          `spade: E_IO: ${path} is ${kind}, not a file: a run's store is the SQLite file run.sqlite (give the folder a run was written to (--out); if that is ${out}, its store was replaced: move ${path} out of the way and restore run.sqlite from a backup)\n`,
        ]);
      }
    }
  });
});

describe("spade run: its folder deleted or moved under it", () => {
  /** A 30-step run against a slow server, started; `away` is done to its folder once step 1 is stored. */
  async function runThen(out: string, away: () => void) {
    let delayMs = 100; // slow enough to act between steps, fast again for a resume
    server = await startFakeOpenAIServer(() => ({
      kind: "slow",
      delayMs,
      reply: { kind: "text", content: "no program here" },
    }));
    const run = spadeAsync(runArgs(server.baseURL, out, ["--steps", "30"]));
    await waitFor(() => existsSync(join(out, "metrics.jsonl")));
    away();
    const r = await run.done;
    delayMs = 0;
    return r;
  }
  /** The coded error line a run in `out` ends with when its folder went away. */
  const goneLine = (out: string) =>
    `spade: E_NOT_FOUND: the run in ${out} is gone: its folder or run.sqlite was deleted or moved while the run wrote to it (if it was moved, continue it with spade run --resume <its new place>; if it was deleted, what it held is lost: restore ${out} from a backup and continue with spade run --resume ${out}, or start a new run)\n`;

  it("deleted: exits 2 with E_NOT_FOUND saying the folder is gone, not to check the disk", async () => {
    const out = join(root, "deleted");
    const r = await runThen(out, () => rmSync(out, { recursive: true }));
    expect([r.code, r.stderr.slice(r.stderr.lastIndexOf("spade: "))]).toEqual([2, goneLine(out)]);
    expect(existsSync(out)).toBe(false);
  });

  it("moved: E_NOT_FOUND, and --resume at its new place finishes the run", async () => {
    const out = join(root, "moving");
    const moved = join(root, "moved");
    const r = await runThen(out, () => renameSync(out, moved));
    expect([r.code, r.stderr.slice(r.stderr.lastIndexOf("spade: "))]).toEqual([2, goneLine(out)]);
    const resumed = await spade(["run", "--resume", moved]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const store = RunStore.open(moved, "read");
    expect(store.doneSteps()).toBe(30);
    store.close();
  }, 60_000);

  it("made again for another run: the old run stops, and leaves the new run's store and metrics alone", async () => {
    server = await startFakeOpenAIServer(() => ({
      kind: "slow",
      delayMs: 100,
      reply: { kind: "text", content: "no program here" },
    }));
    const out = join(root, "remade");
    const metrics = join(out, "metrics.jsonl");
    const old = spadeAsync(runArgs(server.baseURL, out, ["--steps", "30"]));
    await waitFor(() => existsSync(metrics));
    // Held while its folder is made again, so its next unit of work finds the new run there.
    old.child.kill("SIGSTOP");
    rmSync(out, { recursive: true }); // rm -rf out && spade run --out out
    const created = spadeAsync(runArgs(server.baseURL, out, ["--steps", "30"]));
    const lineCount = () =>
      existsSync(metrics) ? readFileSync(metrics, "utf8").split("\n").length - 1 : 0;
    await waitFor(() => lineCount() >= 1);
    old.child.kill("SIGCONT");
    const r = await old.done;
    expect([r.code, r.stderr.slice(r.stderr.lastIndexOf("spade: "))]).toEqual([
      2,
      `spade: E_NOT_FOUND: the run in ${out} is gone: its folder or run.sqlite was deleted or moved while the run wrote to it, and ${out} now holds another run (leave ${out} to that run; if this one was moved, continue it with spade run --resume <its new place>; if it was deleted, what it held is lost: restore it from a backup to another folder and continue it with spade run --resume <that folder>, or start a new run)\n`,
    ]);
    // The new run, stopped once it stored two steps, then killed as kill -9 kills: its commits
    // since its last checkpoint are only in its WAL, which the old run's stop must not delete.
    await waitFor(() => lineCount() >= 2);
    created.child.kill("SIGSTOP");
    const lines = readFileSync(metrics, "utf8").trimEnd().split("\n");
    created.child.kill("SIGKILL");
    await created.done;
    const store = RunStore.open(out, "read");
    const done = store.steps().filter((s) => s.status === "done");
    store.close();
    const { seconds: _, ...first } = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect({
      lineSteps: lines.map((l) => (JSON.parse(l) as { step: number }).step),
      storedSteps: done.map((s) => s.step).slice(0, lines.length),
      // A step is stored before its line is written: a kill between the two leaves one more.
      storedPastLines: done.length - lines.length <= 1,
      firstLineIsStored: first,
    }).toEqual({
      lineSteps: lines.map((_, i) => i),
      storedSteps: lines.map((_, i) => i),
      storedPastLines: true,
      firstLineIsStored: done[0]?.metrics,
    });
  }, 60_000);
});

const CAN_MOUNT = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = join(root, "mount-probe");
  mkdirSync(probe);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe]);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!CAN_MOUNT)("spade run: a full disk (a small tmpfs)", () => {
  it("exits 2 with E_DISK_FULL saying the run can be resumed elsewhere, and resumes there", async () => {
    // Long answers fill the disk within the first step.
    server = await startFakeOpenAIServer(() => ({
      kind: "text",
      content: `no program here ${"z".repeat(60_000)}`,
    }));
    const disk = mkdtempSync(join(root, "full-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=320k", "tmpfs", disk]);
    mounts.push(disk);
    const out = join(disk, "run");
    const r = await spade(
      runArgs(server.baseURL, out, [
        "--steps",
        "3",
        "--max-attempts",
        "5",
        "--designs-per-step",
        "2",
      ]),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /spade: E_DISK_FULL: the disk holding .* is full \((SQLITE_FULL|ENOSPC)/,
    );
    expect(r.stderr).toContain(
      `copy ${out} to a disk with space and continue there with spade run --resume <the copy>`,
    );
    expect(r.stderr).not.toContain("    at ");
    const copy = join(root, "copied-run");
    execFileSync("cp", ["-r", out, copy]);
    expect(readdirSync(copy)).toContain("run.sqlite");
    const resumed = await spade(["run", "--resume", copy]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const store = RunStore.open(copy, "read");
    expect(store.doneSteps()).toBe(3);
    store.close();
  });

  it("a full disk under --log tensorboard:DIR says to resume the run, not to copy DIR", async () => {
    let delayMs = 100; // slow enough to fill the disk between steps, fast again for the resume
    server = await startFakeOpenAIServer(() => ({
      kind: "slow",
      delayMs,
      reply: { kind: "text", content: "no program here" },
    }));
    const disk = mkdtempSync(join(root, "tb-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=8k", "tmpfs", disk]);
    mounts.push(disk);
    const tb = join(disk, "tb");
    const out = join(root, "tb-run");
    const run = spadeAsync(
      runArgs(server.baseURL, out, ["--steps", "30", "--log", `tensorboard:${tb}`]),
    );
    await waitFor(() => existsSync(tb) && readdirSync(tb).length > 0);
    writeFileSync(join(disk, "filler"), Buffer.alloc(4096)); // the event file has the other page
    const r = await run.done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^spade: E_DISK_FULL: the disk holding ${tb}/events\\.out\\.tfevents\\.\\S+ is full \\(ENOSPC: .*\\) \\(every finished step is stored: free space and continue with spade run --resume ${out}\\)$`,
        "m",
      ),
    );
    expect(r.stderr).not.toContain("    at ");
    const stopped = RunStore.open(out, "read");
    const done = stopped.doneSteps();
    stopped.close();
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(30);
    delayMs = 0;
    const resumed = await spade(["run", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const store = RunStore.open(out, "read");
    expect(store.doneSteps()).toBe(30);
    store.close();
  }, 60_000);
});

describe.skipIf(!CAN_MOUNT)(
  "spade run: a finished run on a read-only disk (a tmpfs remounted ro)",
  () => {
    it("is one file, which runs show and runs export read; resumed on a writable disk, it is again", async () => {
      server = await startFakeOpenAIServer(() => ({ kind: "text", content: "no program here" }));
      const disk = mkdtempSync(join(root, "ro-"));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", disk]);
      mounts.push(disk);
      const out = join(disk, "run");
      const r = await spade(runArgs(server.baseURL, out, ["--steps", "2"]));
      expect(r.code, r.stderr).toBe(0);
      const oneFile = ["metrics.jsonl", "run.lock", "run.sqlite"];
      expect(readdirSync(out).sort()).toEqual(oneFile);
      remountTmpfs(disk);
      const show = await spade(["runs", "show", out]);
      expect([show.code, show.stderr, show.stdout.split("\n")[0]]).toEqual([
        0,
        "",
        `${out}: 2 steps done, 0 valid designs of 1`,
      ]);
      // The dashboard's reader (src/dashboard/store-read.ts) reads it for the export.
      const exported = await spade([
        "runs",
        "export",
        out,
        "--to",
        "tensorboard",
        join(root, "tb-ro"),
      ]);
      expect([exported.code, exported.stderr]).toEqual([0, ""]);
      expect(exported.stdout).toMatch(/^exported 2 steps \(\d+ scalars, \d+ transcripts\) to /);
      remountTmpfs(disk, true);
      const resumed = await spade(["run", "--resume", out, "--steps", "3"]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(readdirSync(out).sort()).toEqual(oneFile);
    });
  },
);
