/**
 * The model-server fault matrix: `spade env run` and `spade eval` through the real, built command
 * against the fake OpenAI-compatible server (a test double) scripted with one fault each. For
 * every fault: the exit code, the failure codes recorded, the number of requests, a wall-time
 * bound (short timeouts and budgets keep it small), and the retry notice on stderr.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { benchmarksDir } from "../../src/eval/acebench/testing/bench-dir.js";
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeReply,
} from "../fakes/openai-server.js";
import { skipWithout } from "../missing.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The right answer of vault-cracker is unknown; a fixed guess plays all of its turns. */
const GUESS: FakeReply = { kind: "text", content: "\\boxed{0123}" };
/** Timeout, budget and retries of every row: a hang costs at most the budget. */
const LIMITS = [
  "--request-timeout",
  "1",
  "--retry-budget",
  "4",
  "--max-retries",
  "3",
  "--max-answer-bytes",
  "65536",
];

/** One row: a fault, how often, and what must come out. */
interface Row {
  fault: string;
  /** The reply to request i (0-based). */
  script: (i: number) => FakeReply;
  code: number;
  failureCode: string | null;
  /** Requests the server must have seen, or a predicate on their number. */
  requests: number | ((n: number) => boolean);
  /** Wall time of the whole command must be under this (startup included). */
  maxWallMs: number;
  /** And at least this (a honoured retry-after). */
  minWallMs?: number;
  /** A line the notices must contain on stderr, or null for no notice. */
  notice: RegExp | null;
  /** The recorded failure's message must match. */
  failure?: RegExp;
}

const once = (fault: FakeReply) => (i: number) => (i === 0 ? fault : GUESS);
const always = (fault: FakeReply) => () => fault;

const ROWS: Row[] = [
  {
    fault: "429 with retry-after, once",
    script: once({ kind: "status", status: 429, headers: { "retry-after": "1" } }),
    code: 0,
    failureCode: null,
    requests: (n) => n >= 2 && n <= 11,
    minWallMs: 1_000,
    maxWallMs: 15_000,
    notice:
      /^spade: model server: E_POLICY_HTTP: .* answered HTTP 429: .*; retry 1 of 3 in 1\.0 s \(retry budget left \d\.\d s\)$/m,
  },
  {
    fault: "429 without retry-after, always",
    script: always({ kind: "status", status: 429 }),
    code: 3,
    failureCode: "E_POLICY_HTTP",
    requests: 4,
    maxWallMs: 15_000,
    notice:
      /^spade: model server: E_POLICY_HTTP: .* answered HTTP 429: .*; retry 1 of 3 in 0\.\d s/m,
    failure: /answered HTTP 429: 429 fake error 429 \(4 attempts\)/,
  },
  {
    fault: "500, always",
    script: always({ kind: "status", status: 500 }),
    code: 3,
    failureCode: "E_POLICY_HTTP",
    requests: 4,
    maxWallMs: 15_000,
    notice: /retry 1 of 3/,
    failure: /answered HTTP 500: 500 fake error 500 \(4 attempts\)/,
  },
  {
    fault: "503, once",
    script: once({ kind: "status", status: 503 }),
    code: 0,
    failureCode: null,
    requests: (n) => n >= 2 && n <= 11,
    maxWallMs: 15_000,
    notice: /answered HTTP 503: .*; retry 1 of 3/,
  },
  {
    fault: "hang, always",
    script: always({ kind: "hang" }),
    code: 3,
    failureCode: "E_POLICY_TIMEOUT",
    requests: (n) => n >= 2 && n <= 4,
    maxWallMs: 15_000,
    notice: /E_POLICY_TIMEOUT: .* gave no answer within 1000 ms; retry 1 of 3/,
    failure: /gave no answer within 1000 ms \(\d attempts; the retry budget of 4 s is spent\)/,
  },
  {
    fault: "connection closed mid-answer, once",
    script: once({ kind: "cut", content: "\\boxed{0123}" }),
    code: 0,
    failureCode: null,
    requests: (n) => n >= 2 && n <= 11,
    maxWallMs: 15_000,
    notice: /broke off after \d+ bytes of the answer/,
  },
  {
    fault: "connection closed mid-answer, always",
    script: always({ kind: "cut", content: "\\boxed{0123}" }),
    code: 3,
    failureCode: "E_POLICY_HTTP",
    requests: 4,
    maxWallMs: 15_000,
    notice: /broke off after \d+ bytes of the answer/,
    failure: /broke off after \d+ bytes of the answer: .* \(4 attempts\)/,
  },
  {
    fault: "malformed JSON",
    script: always({ kind: "raw", body: '{"id": "x", "choices": [{"message": ' }),
    code: 3,
    failureCode: "E_POLICY_OUTPUT",
    requests: 1,
    maxWallMs: 10_000,
    notice: null,
    failure: /answered HTTP 200 with a body that is not JSON: .* \(1 attempt\)/,
  },
  {
    fault: "empty choices",
    script: always({ kind: "no-choices" }),
    code: 3,
    failureCode: "E_POLICY_OUTPUT",
    requests: 1,
    maxWallMs: 10_000,
    notice: null,
    failure: /the server's answer has no choices/,
  },
  {
    fault: "oversized answer (declared length)",
    script: always({ kind: "large", chars: 200_000 }),
    code: 3,
    failureCode: "E_POLICY_OUTPUT",
    requests: 1,
    maxWallMs: 10_000,
    notice: null,
    failure: /sent an answer of 200\d{3} bytes, over the cap of 65536 bytes \(1 attempt\)/,
  },
  {
    fault: "oversized answer (streamed, no length)",
    script: always({ kind: "large", chars: 200_000, chunked: true }),
    code: 3,
    failureCode: "E_POLICY_OUTPUT",
    requests: 1,
    maxWallMs: 10_000,
    notice: null,
    failure: /sent an answer of more than 65536 bytes, over the cap of 65536 bytes \(1 attempt\)/,
  },
  {
    fault: "invalid tool-call JSON",
    script: always({ kind: "tool_calls", calls: [{ name: "guess", arguments: '{"code": "01' }] }),
    code: 3,
    failureCode: "E_POLICY_TOOL_CALL",
    requests: 1,
    maxWallMs: 10_000,
    notice: null,
    failure: /the model wrote 1 tool call\(s\) that are not valid JSON/,
  },
];

describe("fault matrix: spade env run --policy openai against a failing server", () => {
  for (const row of ROWS) {
    it(`${row.fault}: exit ${row.code}, ${row.failureCode ?? "no failure"}`, async () => {
      let n = 0;
      server = await startFakeOpenAIServer(() => row.script(n++));
      const started = Date.now();
      const r = await spade([
        "env",
        "run",
        "vault-cracker",
        "--policy",
        "openai",
        "--base-url",
        server.baseURL,
        "--model",
        "m",
        ...LIMITS,
        "--json",
      ]);
      const wallMs = Date.now() - started;
      expect(r.code, r.stderr).toBe(row.code);
      const out = JSON.parse(r.stdout);
      const [episode] = out.episodes;
      expect(episode.failureCode).toBe(row.failureCode);
      expect(out.summary).toMatchObject({
        episodes: 1,
        failed: row.failureCode ? 1 : 0,
        nothingPlayed: row.failureCode !== null,
      });
      if (row.failure) expect(episode.failure).toMatch(row.failure);
      if (typeof row.requests === "number") expect(server.requests).toHaveLength(row.requests);
      else
        expect(row.requests(server.requests.length), `${server.requests.length} requests`).toBe(
          true,
        );
      if (row.notice) expect(r.stderr).toMatch(row.notice);
      else expect(r.stderr).toBe("");
      expect(wallMs).toBeLessThan(row.maxWallMs);
      if (row.minWallMs) expect(wallMs).toBeGreaterThanOrEqual(row.minWallMs);
    });
  }

  it("says in the text summary that no episode could be played", async () => {
    server = await startFakeOpenAIServer(
      always({ kind: "status", status: 400, message: "unknown model" }),
    );
    const r = await spade([
      "env",
      "run",
      "vault-cracker",
      "--policy",
      "openai",
      "--base-url",
      server.baseURL,
      "--model",
      "m",
      "--episodes",
      "2",
    ]);
    expect(r.code).toBe(3);
    const lines = r.stdout.trim().split("\n");
    expect(lines.slice(-2)).toEqual([
      "vault-cracker: 0/2 successes, mean return 0.000, 2 failed",
      expect.stringMatching(
        /^no episode could be played: all 2 failed \(first failure: agent: E_POLICY_HTTP: .* answered HTTP 400: 400 unknown model \(1 attempt\)/,
      ),
    ]);
  });
});

const DATA = benchmarksDir();
const HAVE_GSM8K = !skipWithout(
  existsSync(join(DATA, "gsm8k")) ? null : `gsm8k not found in ${DATA}`,
);
const dir = fileTempDir("spade-faults-");

describe.skipIf(!HAVE_GSM8K)(
  `fault matrix: spade eval ${HAVE_GSM8K ? "" : `(benchmarks not found at ${DATA})`}`,
  () => {
    it("exits 3 and says so when every sample failed on a server that never answers", async () => {
      server = await startFakeOpenAIServer(always({ kind: "hang" }));
      const started = Date.now();
      const args = [
        "eval",
        "gsm8k",
        "--policy",
        "openai",
        "--base-url",
        server.baseURL,
        "--model",
        "m",
        "--data",
        DATA,
        "--limit",
        "2",
        "--out",
        join(dir, "hang"),
      ];
      const r = await spade([
        ...args,
        "--request-timeout",
        "0.5",
        "--retry-budget",
        "1",
        "--max-retries",
        "1",
      ]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toMatch(
        /^no sample could be played: all 2 failed \(first failure: agent: E_POLICY_TIMEOUT: .* gave no answer within 500 ms \(/m,
      );
      expect(Date.now() - started).toBeLessThan(15_000);
    });

    it("exits 0 when some samples were played, even if others failed", async () => {
      let n = 0;
      server = await startFakeOpenAIServer(() =>
        n++ === 0 ? { kind: "status", status: 400 } : { kind: "text", content: "\\boxed{1}" },
      );
      const r = await spade([
        "eval",
        "gsm8k",
        "--policy",
        "openai",
        "--base-url",
        server.baseURL,
        "--model",
        "m",
        "--data",
        DATA,
        "--limit",
        "2",
        "--concurrency",
        "1",
        "--out",
        join(dir, "some"),
        "--json",
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ failedSamples: 1, nothingPlayed: false });
    });
  },
);
