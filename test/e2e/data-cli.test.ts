/**
 * `spade data` through the real, built command: the data folder from --data and SPADE_DATA_DIR,
 * `list` (present, missing, changed), and `fetch` from a local HTTP server standing in for the
 * sources (--endpoint): LiveCodeBench's files downloaded and recorded, GSM8K refused for a
 * checksum mismatch, an unreachable source naming the file to put where.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LCB_FILES as LCB } from "../../src/eval/suites/code/livecodebench.js";
import { tempDirsAfterEach } from "../cleanup.js";
import { skipWithout } from "../missing.js";
import { spade } from "./cli.js";

const body = (f: string) => `{"question_id": "${f}"}\n`;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

let server: Server;
let base = "";
const dataDir = tempDirsAfterEach("spade-data-e2e-");
beforeAll(async () => {
  // TEST DOUBLE: serves Hugging Face's and GitHub's paths for the files the test asks for.
  server = createServer((req, res) => {
    const lcb =
      /^\/datasets\/livecodebench\/code_generation_lite\/resolve\/main\/(test\d?\.jsonl)$/.exec(
        req.url ?? "",
      );
    if (lcb)
      res
        .writeHead(200, { "content-length": Buffer.byteLength(body(lcb[1] as string)) })
        .end(body(lcb[1] as string));
    else if ((req.url ?? "").endsWith("/grade_school_math/data/test.jsonl"))
      res.writeHead(200).end('{"question": "not the pinned file"}\n');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("spade data", () => {
  it("path: --data, else SPADE_DATA_DIR, else the user cache", async () => {
    expect((await spade(["data", "path", "--data", "/srv/d"])).stdout).toBe("/srv/d\n");
    expect((await spade(["data", "path"], { SPADE_DATA_DIR: "/env/d" })).stdout).toBe("/env/d\n");
    expect(
      (await spade(["data", "path"], { SPADE_DATA_DIR: "", XDG_CACHE_HOME: "/xdg" })).stdout,
    ).toBe("/xdg/spade/data\n");
  });

  it("fetch livecodebench: downloads the six files, records them, verifies them next time; list shows it present then changed", async () => {
    const dir = dataDir();
    const res = await spade(["data", "fetch", "livecodebench", "--data", dir, "--endpoint", base]);
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split("\n")).toEqual(
      LCB.map((f) => `downloaded livecodebench/${f} ${body(f).length} B sha256 ${sha(body(f))}`),
    );
    // Not a terminal: plain lines, no bar.
    expect(res.stderr.split("\n")[0]).toBe(
      `fetching ${base}/datasets/livecodebench/code_generation_lite/resolve/main/test.jsonl -> livecodebench/test.jsonl (${body("test.jsonl").length} B)`,
    );
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(Object.keys(manifest)).toEqual(LCB.map((f) => `livecodebench/${f}`));
    expect(manifest["livecodebench/test6.jsonl"].sha256).toBe(sha(body("test6.jsonl")));
    const again = await spade([
      "data",
      "fetch",
      "livecodebench",
      "--data",
      dir,
      "--endpoint",
      base,
    ]);
    expect(again.stdout.split("\n")[0]).toBe(
      `verified livecodebench/test.jsonl ${body("test.jsonl").length} B sha256 ${sha(body("test.jsonl"))}`,
    );
    const list = JSON.parse((await spade(["data", "list", "--json", "--data", dir])).stdout);
    expect(list.datasets.find((d: any) => d.name === "livecodebench")).toMatchObject({
      present: true,
      changed: [],
      bytes: LCB.reduce((n, f) => n + body(f).length, 0),
    });
    expect(list.datasets.find((d: any) => d.name === "gsm8k")).toMatchObject({
      present: false,
      fetchable: true,
    });
    writeFileSync(join(dir, "livecodebench", "test3.jsonl"), "edited\n");
    const text = (await spade(["data", "list", "--data", dir])).stdout;
    const bytes = LCB.reduce(
      (n, f) => n + (f === "test3.jsonl" ? "edited\n".length : body(f).length),
      0,
    );
    expect(text).toContain(
      `livecodebench  present, ${bytes} B, CHANGED: livecodebench/test3.jsonl`,
    );
    expect(text).toContain("gsm8k          missing (spade data fetch gsm8k)");
    expect(text).toContain("bfcl           missing (from ShishirPatil/gorilla at 6ea5797");
  });

  it("fetch gsm8k refuses a file whose sha256 is not the pinned one; an unreachable source names the file to put where", async () => {
    const dir = dataDir();
    const bad = await spade(["data", "fetch", "gsm8k", "--data", dir, "--endpoint", base]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      "spade: E_DATA_FETCH: gsm8k/test.jsonl: checksum mismatch: expected sha256 3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14",
    );
    expect(existsSync(join(dir, "gsm8k", "test.jsonl"))).toBe(false);
    const offline = await spade([
      "data",
      "fetch",
      "humaneval",
      "--data",
      dir,
      "--endpoint",
      "http://127.0.0.1:1",
    ]);
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain(
      `save it as ${join(dir, "humaneval", "HumanEval.jsonl.gz")}, and run \`spade data fetch\` again`,
    );
    const unknown = await spade(["data", "fetch", "mmlu", "--data", dir]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining('E_NOT_FOUND: unknown dataset "mmlu"'),
    ]);
  });

  it.skipIf(
    skipWithout(
      existsSync(process.env.SPADE_DATA_DIR ?? "")
        ? null
        : `no benchmark data at ${process.env.SPADE_DATA_DIR} (SPADE_DATA_DIR, vitest.config.ts)`,
    ),
  )("finds the shared benchmarks' datasets where tests put SPADE_DATA_DIR", async () => {
    const list = JSON.parse((await spade(["data", "list", "--json"])).stdout);
    const present = list.datasets.filter((d: any) => d.present).map((d: any) => d.name);
    expect(present).toEqual([
      "gsm8k",
      "math500",
      "humaneval",
      "mbpp",
      "bbh",
      "bfcl",
      "acebench",
      "reasoning-gym",
    ]);
    expect(list.datasets.filter((d: any) => d.changed.length > 0)).toEqual([]);
  });
});
