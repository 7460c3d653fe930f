/**
 * A model server that goes down during `spade eval`: after `--outage-after` failed requests in a
 * row the evaluation stops with E_POLICY_UNAVAILABLE (exit 1) instead of scoring every remaining
 * item as wrong; finished items are kept, and `--resume` plays again the items a sample of which
 * the server failed, so the resumed summary is that of a run the server never failed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../fakes/openai-server.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-eval-outage-");
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** vault-cracker has 10 turns; a fixed wrong guess plays them all, so one sample is 10 requests. */
const TURNS = 10;

/** TEST DOUBLE: answers a wrong guess while `up`, HTTP 503 otherwise. */
async function switchable(): Promise<{
  server: FakeOpenAIServer;
  state: { up: (i: number) => boolean };
}> {
  const state = { up: (_i: number) => true };
  let n = 0;
  const started = await startFakeOpenAIServer(() =>
    state.up(n++)
      ? { kind: "text", content: "\\boxed{0123}" }
      : { kind: "status", status: 503, message: "the double is down" },
  );
  return { server: started, state };
}

const evalArgs = (baseURL: string, out: string, outageAfter: string) => [
  "eval",
  "env",
  "vault-cracker",
  "counterfeit-coin",
  "--policy",
  "openai",
  "--base-url",
  baseURL,
  "--model",
  "m",
  "--samples",
  "2",
  "--concurrency",
  "1",
  "--max-retries",
  "0",
  "--outage-after",
  outageAfter,
  "--out",
  out,
  "--json",
];

describe("spade eval when the model server goes down", () => {
  it("stops after --outage-after failures in a row; --resume plays the spoiled item again", async () => {
    const started = await switchable();
    server = started.server;
    const args = evalArgs(server.baseURL, join(dir, "down"), "2");
    // vault-cracker's first sample is played, then the server goes down: its second sample fails
    // (failure 1; the item is finished and written), counterfeit-coin's first fails (failure 2: stop).
    started.state.up = (i) => i < TURNS;
    const stopped = await spade(args);
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.stderr).toMatch(
      /spade: E_POLICY_UNAVAILABLE: 2 model requests in a row failed after their retries, none answered in between \(the last: E_POLICY_HTTP: [^\n]*HTTP 503[^\n]*\); stopped so that no more work fails \(finished items are kept: once the model server answers again \(spade doctor checks it\), rerun with --resume and the same --out; items a sample of which the server failed are played again\)/,
    );
    expect(stopped.stderr).not.toContain("interrupted after");
    expect(server.requests).toHaveLength(TURNS + 2);
    const summary = JSON.parse(readFileSync(join(dir, "down", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ items: 1, total: 2, interrupted: true, failedSamples: 1 });

    started.state.up = () => true;
    const before = server.requests.length;
    const resumed = await spade([...args, "--resume"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      items: 2,
      total: 2,
      resumed: 0,
      interrupted: false,
      failedSamples: 0,
    });
    // Both of vault-cracker's samples were played again.
    expect(server.requests.length - before).toBeGreaterThanOrEqual(2 * TURNS);
  });

  it("--outage-after 0 never stops: every sample's failure is recorded and the run ends", async () => {
    const started = await switchable();
    server = started.server;
    started.state.up = () => false;
    const r = await spade(evalArgs(server.baseURL, join(dir, "never"), "0"));
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      items: 2,
      interrupted: false,
      failedSamples: 4,
      nothingPlayed: true,
    });
    expect(server.requests).toHaveLength(4);
  });
});
