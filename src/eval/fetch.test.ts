import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejected } from "../../test/assert.js";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { isSpadeError } from "../errors.js";
import { readPool } from "../envs/pool.js";
import {
  AIME_INSTRUCTION,
  aimeRowsFromParquet,
  findDataset,
  GPT55_POOL_REVISION,
  gpqaRows,
  type Dataset,
} from "./datasets.js";
import { datasetStatus, fetchDataset, readManifest, type FetchDeps } from "./fetch.js";

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
const BODY = '{"a":1}\n{"a":2}\n';

// A local HTTP server standing in for Hugging Face / GitHub (a test double).
let server: Server;
let base = "";
const hits: string[] = [];
function handle(req: IncomingMessage, res: ServerResponse): void {
  hits.push(req.url ?? "");
  if (req.url === "/redirect/a.jsonl") {
    res.writeHead(302, { location: "/files/a.jsonl" }).end();
  } else if (req.url === "/files/a.jsonl") {
    res.writeHead(200, { "content-length": Buffer.byteLength(BODY) }).end(BODY);
  } else if (req.url === "/drop/big.jsonl") {
    // Promises 1,000 bytes, sends 100, then the connection drops.
    res.writeHead(200, { "content-length": 1000 });
    res.write("x".repeat(100), () => setTimeout(() => req.socket.destroy(), 20));
  } else if (req.url === "/gated/g.jsonl") {
    if (req.headers.authorization === "Bearer t0k") res.writeHead(200).end(BODY);
    else res.writeHead(401).end("unauthorized");
  } else if (POOL.has(req.url ?? "")) {
    res.writeHead(200).end(POOL.get(req.url ?? ""));
  } else res.writeHead(404).end();
}

// The GPT-5.5 pool as the test server serves it, at the real dataset's paths (a test double).
const POOL_PATH = `/datasets/spare-rl/spare-gpt55-static-corpus/resolve/${GPT55_POOL_REVISION}`;
const GAMES: Record<string, string> = {
  "games/game_000000.py": "class AEnv:\n    def reset(self, seed=None):\n        return 'a', {}\n",
  "games/game_000001.py": "class BEnv:\n    def reset(self, seed=None):\n        return 'b', {}\n",
};
const POOL = new Map<string, string>([
  ...Object.entries(GAMES).map(([p, text]) => [`${POOL_PATH}/${p}`, text] as [string, string]),
  [
    `${POOL_PATH}/checksums.sha256`,
    Object.entries(GAMES)
      .map(([p, text]) => `${sha(text)}  ${p}`)
      .join("\n"),
  ],
  [
    `${POOL_PATH}/manifest.jsonl`,
    '{"game_id":"game_000000","file_name":"game_000000.py","skill":"spatial_reasoning"}\n',
  ],
  [`${POOL_PATH}/validation_manifest.jsonl`, '{"file_name":"game_000001.py","valid":false}\n'],
  [`${POOL_PATH}/bad/checksums.sha256`, `${sha("x")}  ../escape.py\n`],
  [`${POOL_PATH}/wrong/checksums.sha256`, `${"0".repeat(64)}  games/game_000000.py\n`],
  [`${POOL_PATH}/wrong/games/game_000000.py`, "changed\n"],
]);
beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const deps = (
  env: Record<string, string> = {},
): FetchDeps & { seen: Array<[string, number, number | null]> } => {
  const seen: Array<[string, number, number | null]> = [];
  return {
    fetch: globalThis.fetch,
    env,
    now: () => new Date("2026-12-01T00:00:00Z"),
    onProgress: (f, got, total) => seen.push([f.path, got, total]),
    seen,
  };
};
const dataset = (files: Dataset["files"], extra: Partial<Dataset> = {}): Dataset => ({
  name: "t",
  description: "test",
  dir: "t",
  files,
  marker: files[0]?.path ?? "t/x",
  source: "test server",
  ...extra,
});
const fresh = tempDirsAfterEach("spade-fetch-");
async function failure(p: Promise<unknown>): Promise<string> {
  const err = await rejected(p);
  expect(isSpadeError(err, "E_DATA_FETCH")).toBe(true);
  return (err as Error).message;
}

describe("fetchDataset against a local HTTP server", () => {
  it("follows a redirect, writes the file, records its sha256 in the manifest, and verifies it next time without a request", async () => {
    const root = fresh();
    const d = deps();
    const ds = dataset([{ path: "t/a.jsonl", url: `${base}/redirect/a.jsonl` }]);
    const out = await fetchDataset(root, ds, d);
    expect(out).toEqual([
      { path: "t/a.jsonl", status: "downloaded", sha256: sha(BODY), bytes: 16 },
    ]);
    expect(readFileSync(join(root, "t/a.jsonl"), "utf8")).toBe(BODY);
    expect(d.seen.at(-1)).toEqual(["t/a.jsonl", 16, 16]);
    expect(await readManifest(root)).toEqual({
      "t/a.jsonl": {
        sha256: sha(BODY),
        bytes: 16,
        url: `${base}/redirect/a.jsonl`,
        fetchedAt: "2026-12-01T00:00:00.000Z",
      },
    });
    const before = hits.length;
    expect((await fetchDataset(root, ds, deps()))[0]?.status).toBe("verified");
    expect(hits.length).toBe(before);
    // A changed file shows in the status, and the next fetch replaces it.
    writeFileSync(join(root, "t/a.jsonl"), "tampered\n");
    expect((await datasetStatus(root, ds, await readManifest(root))).changed).toEqual([
      "t/a.jsonl",
    ]);
    expect((await fetchDataset(root, ds, deps()))[0]?.status).toBe("downloaded");
    expect(readFileSync(join(root, "t/a.jsonl"), "utf8")).toBe(BODY);
  });

  it("a dropped connection leaves nothing behind and says which file to fetch by hand", async () => {
    const root = fresh();
    const message = await failure(
      fetchDataset(root, dataset([{ path: "t/big.jsonl", url: `${base}/drop/big.jsonl` }]), deps()),
    );
    expect(message).toMatch(
      /^t\/big\.jsonl: the download from http:\S+ broke off after 100 (of 1000 )?bytes/,
    );
    expect(message).toContain(
      `download ${base}/drop/big.jsonl yourself, save it as ${join(root, "t/big.jsonl")}`,
    );
    expect(readdirSync(join(root, "t"))).toEqual([]);
  });

  it("a checksum mismatch keeps nothing", async () => {
    const root = fresh();
    const message = await failure(
      fetchDataset(
        root,
        dataset([{ path: "t/a.jsonl", url: `${base}/files/a.jsonl`, sha256: "0".repeat(64) }]),
        deps(),
      ),
    );
    expect(message).toContain(
      `checksum mismatch: expected sha256 ${"0".repeat(64)}, got ${sha(BODY)} (the file was not kept)`,
    );
    expect(existsSync(join(root, "t/a.jsonl"))).toBe(false);
    expect(readdirSync(join(root, "t"))).toEqual([]);
  });

  it("a gated dataset names its token variable; with the token it downloads", async () => {
    const ds = dataset([{ path: "t/g.jsonl", url: `${base}/gated/g.jsonl` }], {
      name: "gated",
      tokenEnv: "HF_TOKEN",
    });
    const message = await failure(fetchDataset(fresh(), ds, deps()));
    expect(message).toContain(
      "answered HTTP 401; gated is gated: accept its terms on the dataset page and set HF_TOKEN to a token",
    );
    expect((await fetchDataset(fresh(), ds, deps({ HF_TOKEN: "t0k" })))[0]?.status).toBe(
      "downloaded",
    );
  });

  it("an unreachable source says exactly which file to put where", async () => {
    const root = fresh();
    const message = await failure(
      fetchDataset(
        root,
        dataset([{ path: "t/a.jsonl", url: "http://127.0.0.1:1/files/a.jsonl" }]),
        deps(),
      ),
    );
    expect(message).toContain(`t/a.jsonl: cannot reach http://127.0.0.1:1/files/a.jsonl`);
    expect(message).toContain(
      `(download http://127.0.0.1:1/files/a.jsonl yourself, save it as ${join(root, "t/a.jsonl")}, and run \`spade data fetch\` again to check and record it)`,
    );
    expect(
      await failure(
        fetchDataset(root, dataset([], { name: "manual", source: "somewhere" }), deps()),
      ),
    ).toContain("manual has no single download: it comes from somewhere");
  });
});

describe("the GPT-5.5 pool (a checksum listing naming its games)", () => {
  /** The real dataset, its URLs moved to the test server (as `--endpoint` does). */
  const local = (listingUrl?: string): Dataset => {
    const real = findDataset("gpt55-pool");
    const moved = (url: string) => `${base}${new URL(url).pathname}`;
    return {
      ...real,
      listing: { ...real.listing!, url: listingUrl ?? moved(real.listing!.url) },
      files: real.files.map((f) => ({ ...f, url: moved(f.url) })),
    };
  };

  it("fetches the listing, every game it names (checked), then the manifests: a pool SPADE reads", async () => {
    const root = fresh();
    const out = await fetchDataset(root, local(), deps());
    expect(out.map((o) => [o.path, o.status, o.sha256])).toEqual([
      [
        "gpt55-pool/checksums.sha256",
        "downloaded",
        sha(POOL.get(`${POOL_PATH}/checksums.sha256`)!),
      ],
      ["gpt55-pool/games/game_000000.py", "downloaded", sha(GAMES["games/game_000000.py"]!)],
      ["gpt55-pool/games/game_000001.py", "downloaded", sha(GAMES["games/game_000001.py"]!)],
      ["gpt55-pool/validation_manifest.jsonl", "downloaded", expect.any(String)],
      ["gpt55-pool/manifest.jsonl", "downloaded", expect.any(String)],
    ]);
    // The games are checked against the listing, not recorded one by one.
    expect(Object.keys(await readManifest(root)).sort()).toEqual([
      "gpt55-pool/checksums.sha256",
      "gpt55-pool/manifest.jsonl",
      "gpt55-pool/validation_manifest.jsonl",
    ]);
    const pool = readPool(join(root, "gpt55-pool"));
    expect([pool.verified, pool.excluded, pool.programs.map((p) => [p.id, p.skill])]).toEqual([
      2,
      ["game_000001.py"],
      [["pool-game_000000", "Spatial Reasoning"]],
    ]);
    const before = hits.length;
    expect((await fetchDataset(root, local(), deps())).map((o) => o.status)).toEqual(
      Array(5).fill("verified"),
    );
    expect(hits.length).toBe(before);
  });

  it("refuses a listing naming a path outside the folder, and keeps no game that fails its line", async () => {
    expect(
      await failure(
        fetchDataset(fresh(), local(`${base}${POOL_PATH}/bad/checksums.sha256`), deps()),
      ),
    ).toMatch(
      /^gpt55-pool\/checksums\.sha256 names \.\.\/escape\.py, outside the dataset's folder/,
    );
    const root = fresh();
    const message = await failure(
      fetchDataset(root, local(`${base}${POOL_PATH}/wrong/checksums.sha256`), deps()),
    );
    expect(message).toMatch(
      /^gpt55-pool\/games\/game_000000\.py: checksum mismatch: expected sha256 0{64}/,
    );
    expect(existsSync(join(root, "gpt55-pool/games/game_000000.py"))).toBe(false);
  });
});

describe("conversions", () => {
  const parquet = () =>
    Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: "problem_idx", data: ["1", "2"], type: "STRING" },
          { name: "problem", data: ["Find $x$.", "Find $y$."], type: "STRING" },
          { name: "answer", data: ["70", "8"], type: "STRING" },
        ],
      }),
    );

  it("AIME Parquet becomes the reference's rows, also from a raw download put beside the file by hand", async () => {
    const rows = (await aimeRowsFromParquet(parquet()))
      .toString("utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows).toEqual([
      { prompt: [{ role: "user", content: `Find $x$.${AIME_INSTRUCTION}` }], label: "70" },
      { prompt: [{ role: "user", content: `Find $y$.${AIME_INSTRUCTION}` }], label: "8" },
    ]);
    const root = fresh();
    mkdirSync(join(root, "aime-2025"));
    writeFileSync(join(root, "aime-2025", "train-00000-of-00001.parquet"), parquet());
    const ds = dataset([
      {
        path: "aime-2025/aime-2025.jsonl",
        url: "http://127.0.0.1:1/MathArena/aime_2025/resolve/main/data/train-00000-of-00001.parquet",
        convert: aimeRowsFromParquet,
      },
    ]);
    const [out] = await fetchDataset(root, ds, deps());
    expect(out?.status).toBe("downloaded");
    expect(readFileSync(join(root, "aime-2025/aime-2025.jsonl"), "utf8").split("\n")[0]).toBe(
      JSON.stringify(rows[0]),
    );
    const message = await failure(fetchDataset(fresh(), ds, deps()));
    expect(message).toContain(
      "train-00000-of-00001.parquet, and run `spade data fetch` again (it converts it to",
    );
  });

  it("GPQA options are shuffled as CPython's random.Random(42) does over the rows", () => {
    const row = (i: number) => ({
      Question: `q${i}`,
      "Correct Answer": "C",
      "Incorrect Answer 1": "i1",
      "Incorrect Answer 2": "i2",
      "Incorrect Answer 3": "i3",
    });
    const got = gpqaRows([0, 1, 2, 3, 4].map(row)) as Array<{
      options: string[];
      answer: string;
      question_id: string;
    }>;
    const script =
      "import random, json\nrng = random.Random(42)\nout = []\nfor i in range(5):\n    o = list(range(4)); rng.shuffle(o); out.append(o)\nprint(json.dumps(out))";
    const orders = JSON.parse(
      execFileSync("python3", ["-c", script], { encoding: "utf8" }),
    ) as number[][];
    const names = ["C", "i1", "i2", "i3"];
    expect(got.map((g) => g.options)).toEqual(orders.map((o) => o.map((j) => names[j])));
    expect(got.map((g) => g.answer)).toEqual(orders.map((o) => "ABCD"[o.indexOf(0)]));
    expect(got[0]).toMatchObject({ question_id: "d0", question: "q0" });
    // Python 3.11's Random(42): the first order is [2, 1, 3, 0], so the correct option is D.
    expect(got[0]?.answer).toBe("D");
  });
});
