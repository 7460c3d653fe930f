/**
 * `spade archive export`: a run folder's designed environments, filtered by regret and skill, as an
 * OpenEnv package (whose programs `spade serve` loads) and as JSON Lines. The run is a store
 * written directly (a test double of a finished run: library programs stored as designs).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveProgram } from "../../src/envs/index.js";
import { loadCatalog } from "../../src/serve/index.js";
import { loadProgram } from "../../src/sandbox/index.js";
import { EMPTY_STATS, RunStore } from "../../src/store/index.js";
import { spadeAsync } from "./cli.js";
import { fileTempDir } from "../cleanup.js";
import { mountTmpfs, remountTmpfs, skipWithoutTmpfs } from "../tmpfs.js";

const dir = fileTempDir("spade-archive-");
const run = join(dir, "run");

beforeAll(async () => {
  const store = RunStore.open(run, "create");
  try {
    const designs: Array<[string, number | null, number | null]> = [
      ["vault-cracker", 0.5, 0.4],
      ["lantern-grid", 0.1, 0.8],
      ["bank-transfer", 0.3, 0.5],
      ["fog-maze", null, null],
    ];
    for (const [i, [name, regret, winRate]] of designs.entries()) {
      const source = resolveProgram(name).source;
      const env = await loadProgram(source);
      const meta = env.meta;
      await env.close();
      const id = `d4-${i}`;
      store.insertEnvironment({
        id,
        name: meta.name,
        skill: meta.skill,
        description: meta.description,
        code: source,
        meta,
        source: "designer",
        createdStep: 4,
        slot: i,
        docId: null,
        hint: null,
        stats: EMPTY_STATS,
      });
      store.updateStats(id, { ...EMPTY_STATS, plays: 24, regret, winRate });
    }
  } finally {
    store.close();
  }
});

describe("spade archive export", () => {
  it("--format openenv writes a package of the environments with regret >= X, best first, that spade serve loads", async () => {
    const out = join(dir, "pkg");
    const result = await spadeAsync(["archive", "export", run, out, "--min-regret", "0.2"]).done;
    expect([result.code, result.stdout]).toEqual([
      0,
      `exported 2 environments to ${out} (openenv)\n`,
    ]);
    expect(readdirSync(out).sort()).toEqual([
      "Dockerfile",
      "README.md",
      "__init__.py",
      "client.py",
      "envs",
      "models.py",
      "openenv.yaml",
    ]);
    expect(readdirSync(join(out, "envs")).sort()).toEqual(["bank-transfer.js", "vault-cracker.js"]);
    expect(readFileSync(join(out, "envs", "vault-cracker.js"), "utf8")).toBe(
      resolveProgram("vault-cracker").source,
    );
    expect(readFileSync(join(out, "openenv.yaml"), "utf8")).toContain(
      "spec_version: 1\nname: pkg\ntype: space\nruntime: docker\nport: 8000\n",
    );
    expect(readFileSync(join(out, "Dockerfile"), "utf8")).toContain(
      "exec spade serve --host 0.0.0.0 --port 8000",
    );
    const readme = readFileSync(join(out, "README.md"), "utf8");
    const rows = readme.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows.map((r) => r.split(" | ").slice(0, 5))).toEqual([
      ["| `vault-cracker`", "Logical Deduction", "0.500", "0.400", "24"],
      ["| `bank-transfer`", "Error Recovery", "0.300", "0.500", "24"],
    ]);
    expect(readFileSync(join(out, "client.py"), "utf8")).toContain("def trl_environment_factory(");
    const entries = await loadCatalog(
      readdirSync(join(out, "envs")).map((f) => ({
        name: "",
        source: readFileSync(join(out, "envs", f), "utf8"),
        origin: "file" as const,
        from: f,
        stats: null,
      })),
    );
    expect(entries.map((e) => e.name)).toEqual(["bank-transfer", "vault-cracker"]);
  });

  it("--format jsonl writes one record per environment with its stats and code", async () => {
    const out = join(dir, "envs.jsonl");
    const result = await spadeAsync([
      "archive",
      "export",
      run,
      out,
      "--format",
      "jsonl",
      "--skills",
      "logical deduction,Error Recovery",
    ]).done;
    expect(result.code).toBe(0);
    const records = readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records.map((r) => [r.id, r.name, r.regret, r.win_rate, r.plays, r.language])).toEqual([
      ["d4-0", "vault-cracker", 0.5, 0.4, 24, "javascript"],
      ["d4-2", "bank-transfer", 0.3, 0.5, 24, "javascript"],
    ]);
    expect(records[0].code).toBe(resolveProgram("vault-cracker").source);
    expect(records[1].tools.length).toBe(5);
  });

  it("bad input is coded: not a run folder, nothing left after the filters, an unknown format, a folder in use", async () => {
    const notRun = await spadeAsync(["archive", "export", dir, join(dir, "x")]).done;
    expect([notRun.code, notRun.stderr]).toEqual([
      2,
      `spade: E_NOT_FOUND: ${dir} is not a run folder (no run.sqlite) (give the folder a run was written to (--out of spade run))\n`,
    ]);
    const none = await spadeAsync(["archive", "export", run, join(dir, "y"), "--min-regret", "0.9"])
      .done;
    expect([none.code, none.stderr.startsWith("spade: E_CONFIG: no designed environment")]).toEqual(
      [2, true],
    );
    const format = await spadeAsync(["archive", "export", run, join(dir, "z"), "--format", "csv"])
      .done;
    expect([format.code, format.stderr]).toEqual([
      2,
      'spade: E_CONFIG: --format must be openenv or jsonl (got "csv")\n',
    ]);
    const used = await spadeAsync(["archive", "export", run, join(dir, "pkg")]).done;
    expect([
      used.code,
      used.stderr.startsWith(`spade: E_IO: ${join(dir, "pkg")} exists and is not empty`),
    ]).toEqual([2, true]);
  });
});

describe.skipIf(skipWithoutTmpfs())("archive export, full disk", () => {
  it("E_DISK_FULL saying to export again, no cut file or half package left; with space it exports", async () => {
    const disk = mkdtempSync(join(dir, "full-"));
    const unmount = mountTmpfs(disk, "128k");
    try {
      writeFileSync(join(disk, "filler"), Buffer.alloc(120 * 1024)); // 8 KiB left
      for (const [out, format] of [
        [join(disk, "envs.jsonl"), "jsonl"],
        [join(disk, "pkg"), "openenv"],
      ] as const) {
        const r = await spadeAsync(["archive", "export", run, out, "--format", format]).done;
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(
          new RegExp(
            `^spade: E_DISK_FULL: the disk holding ${out} is full \\(ENOSPC: .*\\) \\(free space and export again\\)\\n$`,
          ),
        );
      }
      expect(readdirSync(disk).sort()).toEqual(["filler", "pkg"]);
      expect(readdirSync(join(disk, "pkg"))).toEqual([]);
      rmSync(join(disk, "filler"));
      const again = await spadeAsync(["archive", "export", run, join(disk, "pkg")]).done;
      expect(again.code, again.stderr).toBe(0);
    } finally {
      unmount();
    }
  });
});

describe.skipIf(skipWithoutTmpfs())("archive export of a run on a read-only disk", () => {
  it("reads the finished run copied to a tmpfs remounted read-only", async () => {
    const disk = mkdtempSync(join(dir, "ro-"));
    const unmount = mountTmpfs(disk, "1m");
    try {
      cpSync(run, join(disk, "run"), { recursive: true });
      remountTmpfs(disk);
      const out = join(dir, "from-ro.jsonl");
      const r = await spadeAsync(["archive", "export", join(disk, "run"), out, "--format", "jsonl"])
        .done;
      expect([r.code, r.stderr, r.stdout]).toEqual([
        0,
        "",
        `exported 4 environments to ${out} (jsonl)\n`,
      ]);
    } finally {
      unmount();
    }
  });
});
