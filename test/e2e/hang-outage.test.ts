/**
 * How long the outage breaker takes on a server that accepts connections and never answers (a
 * hung server), measured with short settings: each request fails only when its attempts have
 * timed out, so the breaker trips after ceil(outage-after / requests in flight) rounds of one
 * request's whole time. docs/errors.md scales the same count to the defaults (a request then
 * takes its 1,800 s retry budget). The requests the server saw show where the breaker tripped; the
 * wall time is bounded from below only (a loaded machine starts a process slowly, never quickly).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../fakes/openai-server.js";
import { spade } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const dir = fileTempDir("spade-hang-outage-");
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Two attempts of 0.5 s with one backoff wait between them (0.5 s, jittered by 25 %). */
const SETTINGS = [
  "--request-timeout",
  "0.5",
  "--max-retries",
  "1",
  "--retry-budget",
  "30",
  "--outage-after",
  "3",
];
/** The least time one request of SETTINGS takes to fail: two attempts and the shortest wait. */
const REQUEST_MS = 500 + 375 + 500;

const UNAVAILABLE =
  /\nspade: E_POLICY_UNAVAILABLE: 3 model requests in a row failed after their retries, none answered in between \(the last: E_POLICY_TIMEOUT: http:\/\/127\.0\.0\.1:\d+\/v1 gave no answer within 500 ms \(2 attempts\)/;

/** TEST DOUBLE: a server that accepts every request and never answers. */
async function hung(): Promise<FakeOpenAIServer> {
  return startFakeOpenAIServer(() => ({ kind: "hang" }));
}

/** Runs `spade` with `args` and returns its result and wall time. */
async function timed(args: string[]) {
  const started = Date.now();
  const result = await spade(args);
  return { ...result, wallMs: Date.now() - started };
}

describe("the outage breaker on a server that never answers", () => {
  it("spade env run (one request in flight): 3 rounds of a whole request", async () => {
    server = await hung();
    const r = await timed([
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
      "10",
      ...SETTINGS,
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(UNAVAILABLE);
    expect(server.requests).toHaveLength(3 * 2);
    expect(r.wallMs).toBeGreaterThanOrEqual(3 * REQUEST_MS);
  });

  it("spade eval (3 requests in flight): one round", async () => {
    server = await hung();
    const r = await timed([
      "eval",
      "env",
      "vault-cracker",
      "--policy",
      "openai",
      "--base-url",
      server.baseURL,
      "--model",
      "m",
      "--samples",
      "10",
      "--concurrency",
      "3",
      "--out",
      join(dir, "eval"),
      ...SETTINGS,
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(UNAVAILABLE);
    // The three first requests' six attempts; a sample started after the first failure may add one or two.
    expect(server.requests.length).toBeGreaterThanOrEqual(6);
    expect(server.requests.length).toBeLessThanOrEqual(8);
    expect(r.wallMs).toBeGreaterThanOrEqual(REQUEST_MS);
  });

  it("spade run (3 design requests in flight): one round", async () => {
    server = await hung();
    const r = await timed([
      "run",
      "--out",
      join(dir, "run"),
      "--no-train",
      "--base-url",
      server.baseURL,
      "--model",
      "m",
      "--skills",
      "Logical Deduction",
      "--steps",
      "1",
      "--designs-per-step",
      "3",
      ...SETTINGS,
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(UNAVAILABLE);
    expect(server.requests.length).toBeGreaterThanOrEqual(6);
    expect(server.requests.length).toBeLessThanOrEqual(8);
    expect(r.wallMs).toBeGreaterThanOrEqual(REQUEST_MS);
  });
});
