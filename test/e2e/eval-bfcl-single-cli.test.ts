/**
 * `spade eval bfcl --category non_live,live` and the BFCL-v4 column of `spade eval paper` through
 * the built command against the fake OpenAI-compatible server (a test double) answering with
 * each entry's ground-truth calls, one entry wrong. Needs .venv's bfcl-eval wheel (its data).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { benchmarksDir } from "../../src/eval/acebench/testing/bench-dir.js";
import {
  BFCL_LIVE,
  BFCL_NON_LIVE,
  BfclSingleEnv,
  loadSingleEntries,
} from "../../src/eval/bfcl/index.js";
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeReply,
  type RecordedRequest,
} from "../fakes/openai-server.js";
import { skipWithout } from "../missing.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const DATA = benchmarksDir();
const VENV_LIB = fileURLToPath(new URL("../../.venv/lib/", import.meta.url));
const ROOT = existsSync(VENV_LIB)
  ? readdirSync(VENV_LIB)
      .map((py) => join(VENV_LIB, py, "site-packages"))
      .find((r) => existsSync(join(r, "bfcl_eval/data")))
  : undefined;
const dir = fileTempDir("spade-bfcl-single-e2e-");

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lastUser = (r: RecordedRequest): string =>
  [...r.body.messages].reverse().find((m: any) => m.role === "user")?.content ?? "";

/** Replies with the entry's ground-truth calls (found by its question), except for `wrongId`. */
async function goldServer(wrongId: string): Promise<FakeOpenAIServer> {
  const replies = new Map<string, FakeReply>();
  for (const category of [...BFCL_NON_LIVE, ...BFCL_LIVE]) {
    const entry = loadSingleEntries(ROOT!, category)[0]!;
    const text = entry.question[0]!.map((m) => m.content).join("\n\n");
    const action = await new BfclSingleEnv(entry).solve();
    const reply: FakeReply =
      entry.id === wrongId || action.toolCalls.length === 0
        ? { kind: "text", content: entry.id === wrongId ? "I cannot do that." : action.text }
        : {
            kind: "tool_calls",
            calls: action.toolCalls.map((c) => ({
              id: c.id,
              name: c.name,
              arguments: JSON.stringify(c.arguments),
            })),
          };
    replies.set(text, reply);
  }
  return startFakeOpenAIServer(
    (r): FakeReply => replies.get(lastUser(r)) ?? { kind: "text", content: "I cannot do that." },
  );
}

const MISSING =
  ROOT === undefined
    ? "no .venv with the BFCL wheel: bash scripts/setup-python.sh"
    : existsSync(join(DATA, "bfcl"))
      ? null
      : `BFCL data not found in ${DATA}`;
describe.skipIf(skipWithout(MISSING))(
  "spade eval bfcl single-turn (needs .venv: bash scripts/setup-python.sh)",
  () => {
    it("scores each category and the leaderboard's overall; tools carry upstream's language notes", async () => {
      server = await goldServer("live_simple_0-0-0");
      const out = join(dir, "single");
      const r = await spade([
        "eval",
        "bfcl",
        "--policy",
        "openai",
        "--base-url",
        server.baseURL,
        "--model",
        "m",
        "--data",
        DATA,
        "--single-data",
        ROOT!,
        "--category",
        "non_live,live",
        "--limit",
        "1",
        "--concurrency",
        "1",
        "--json",
        "--out",
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary.groups.map((g: any) => [g.group, g.accuracy])).toEqual(
        [...BFCL_NON_LIVE, ...BFCL_LIVE].map((c) => [c, c === "live_simple" ? 0 : 1]),
      );
      expect(summary.overall.nonLive).toEqual({ accuracy: 1, count: 6, na: false });
      expect(summary.overall.live).toEqual({ accuracy: 0.75, count: 4, na: false });
      expect(summary.overall.irrelevance).toEqual({ accuracy: 1, count: 2, na: false });
      expect(summary.overall.overall.accuracy).toBeCloseTo(0.1 + 0.075 + 0.1, 12);
      expect(summary.overall.overall.na).toBe(true);
      const wrong = JSON.parse(readFileSync(join(out, "items", "live_simple_0-0-0.json"), "utf8"));
      expect(wrong.samples[0].metrics).toEqual({
        valid: false,
        errorType: "simple_function_checker:wrong_count",
      });
      const java = server.requests.find((q) =>
        q.body.tools?.[0]?.function.description.endsWith("Java 8 SDK syntax."),
      );
      expect(java?.body.tools[0].function.parameters.properties.controller).toMatchObject({
        type: "string",
      });
    });

    it("eval paper --setting tool-use fills BFCL-v4 from every category (multi-turn 0 here)", {
      timeout: 300_000,
    }, async () => {
      server = await goldServer("none");
      const out = join(dir, "paper");
      const r = await spade([
        "eval",
        "paper",
        "--setting",
        "tool-use",
        "--policy",
        "openai",
        "--base-url",
        server.baseURL,
        "--model",
        "m",
        "--data",
        DATA,
        "--bfcl-single-data",
        ROOT!,
        "--limit",
        "1",
        "--out",
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
      const bfcl = results.sources.find((s: any) => s.name === "bfcl");
      expect(bfcl.settings).toMatchObject({
        categories: ["non_live", "live", "multi_turn"],
        temperature: 0,
        samples: 1,
      });
      expect(bfcl.details.multiTurn).toEqual({ accuracy: 0, count: 4, na: false });
      expect(results.cells["BFCL-v4"].status).toBe("ok");
      expect(results.cells["BFCL-v4"].value).toBeCloseTo(0.3, 12);
    });
  },
);
