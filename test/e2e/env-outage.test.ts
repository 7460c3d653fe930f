/**
 * A model server that goes down during `spade env run`: after `--outage-after` failed requests in
 * a row the command stops with E_POLICY_UNAVAILABLE (exit 1) instead of playing every remaining
 * episode against a dead server; the episodes that finished are printed, and the next step names
 * the seeds to play again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../fakes/openai-server.js";
import { spade } from "./cli.js";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** vault-cracker has 10 turns; a fixed wrong guess plays them all, so one episode is 10 requests. */
const TURNS = 10;

/** TEST DOUBLE: a wrong guess for the first `answered` requests, HTTP 503 after them. */
function downAfter(answered: number): Promise<FakeOpenAIServer> {
  return startFakeOpenAIServer((request) =>
    request.index < answered
      ? { kind: "text", content: "\\boxed{0123}" }
      : { kind: "status", status: 503, message: "the double is down" },
  );
}

const runArgs = (baseURL: string, extra: string[]) => [
  "env",
  "run",
  "vault-cracker",
  "--policy",
  "openai",
  "--base-url",
  baseURL,
  "--model",
  "m",
  "--episodes",
  "5",
  "--seed",
  "7",
  "--max-retries",
  "0",
  ...extra,
];

const UNAVAILABLE = (baseURL: string) =>
  `spade: E_POLICY_UNAVAILABLE: 2 model requests in a row failed after their retries, none answered in between (the last: E_POLICY_HTTP: ${baseURL} answered HTTP 503: 503 the double is down (1 attempt) (the server is overloaded or failing: lower the concurrency (--concurrency), or check its log)); stopped so that no more work fails (the episodes that finished are printed; once the model server answers again (spade doctor --base-url ${baseURL} --model m checks it), play the 3 episode(s) from the first one it failed with --seed 9 --episodes 3)\n`;

describe("spade env run when the model server goes down", () => {
  it("stops after --outage-after failures in a row and prints the episodes that finished (JSON)", async () => {
    server = await downAfter(2 * TURNS);
    const r = await spade(runArgs(server.baseURL, ["--outage-after", "2", "--json"]));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(UNAVAILABLE(server.baseURL));
    // Seeds 7 and 8 are played; 9 fails (failure 1), 10 fails (failure 2: stop); 11 is not played.
    expect(server.requests).toHaveLength(2 * TURNS + 2);
    const out = JSON.parse(r.stdout);
    expect(
      out.episodes.map((e: { seed: number; turns: number; failureCode: string | null }) => [
        e.seed,
        e.turns,
        e.failureCode,
      ]),
    ).toEqual([
      [7, TURNS, null],
      [8, TURNS, null],
      [9, 0, "E_POLICY_HTTP"],
      [10, 0, "E_POLICY_HTTP"],
    ]);
    expect(out.summary).toEqual({
      episodes: 4,
      requested: 5,
      interrupted: true,
      successes: 0,
      meanReturn: 0,
      failed: 2,
      nothingPlayed: false,
    });
  });

  it("says on the summary line that it stopped (text)", async () => {
    server = await downAfter(0);
    const r = await spade(runArgs(server.baseURL, ["--outage-after", "2"]));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(
      UNAVAILABLE(server.baseURL).replace(
        "play the 3 episode(s) from the first one it failed with --seed 9 --episodes 3",
        "play the 5 episode(s) from the first one it failed with --seed 7 --episodes 5",
      ),
    );
    expect(server.requests).toHaveLength(2);
    const lines = r.stdout.trim().split("\n");
    expect(lines.slice(-2)).toEqual([
      "vault-cracker: 0/2 successes (stopped after 2 of 5 episodes), mean return 0.000, 2 failed",
      expect.stringMatching(/^no episode could be played: all 2 failed \(first failure: agent: /),
    ]);
  });

  it("--outage-after 0 never stops: every episode's failure is printed and it exits 3", async () => {
    server = await downAfter(0);
    const r = await spade(runArgs(server.baseURL, ["--outage-after", "0", "--json"]));
    expect(r.code, r.stderr).toBe(3);
    expect(server.requests).toHaveLength(5);
    expect(JSON.parse(r.stdout).summary).toEqual({
      episodes: 5,
      requested: 5,
      interrupted: false,
      successes: 0,
      meanReturn: 0,
      failed: 5,
      nothingPlayed: true,
    });
  });
});
