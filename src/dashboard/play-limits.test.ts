/**
 * The Play API's limits through the real server, on a fake clock: a start past the cap is
 * refused with 503 E_CAPACITY and Retry-After while every game is in use, takes the place of the
 * game idle longest once it has been idle 5 minutes, and games idle past the timeout are closed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeTestEnv } from "../env/testing/test-env.js";
import { startDashboard, type Dashboard } from "./server.js";
import { testDashboardOptions } from "./testing/options.js";

const MINUTE = 60_000;
const dashboards: Dashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
});

/** A dashboard with at most two games on the clock `now()`, opening test environments (a double). */
async function playServer(now: () => number) {
  const closedBySeed: number[] = [];
  const dashboard = await startDashboard(
    testDashboardOptions([], {
      pollMs: 60_000,
      playLimits: { maxSessions: 2 },
      now,
      // TEST DOUBLE: every program opens as the guess-number test environment; its seed is recorded when it closes.
      openProgram: async () => {
        const env = makeTestEnv();
        let seed = -1;
        return {
          ...env,
          reset: (s) => ((seed = s), env.reset(s)),
          close: async () => void closedBySeed.push(seed),
        };
      },
      library: { names: () => ["guess"], source: () => "class Environment {}" },
    }),
  );
  dashboards.push(dashboard);
  const call = async (action: string, body: Record<string, unknown>) => {
    const response = await fetch(new URL(`/api/play/${action}`, dashboard.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: (await response.json()) as Record<string, any>,
    };
  };
  const start = (seed: number, replace?: string) =>
    call("start", { source: "lib:guess", seed, replace });
  return { call, start, closedBySeed };
}

describe("Play limits", () => {
  it("refuses a start while every game is in use (503 E_CAPACITY, Retry-After), closing none", async () => {
    let now = 0;
    const { call, start, closedBySeed } = await playServer(() => now);
    const a = (await start(1)).body.session;
    const b = (await start(2)).body.session;
    now = MINUTE;
    expect((await call("reply", { session: a, text: "\\boxed{50}" })).status).toBe(200);
    expect(await start(3)).toEqual({
      status: 503,
      retryAfter: "240",
      body: {
        error: {
          code: "E_CAPACITY",
          message:
            "all 2 Play games are in use (each was played in the last 5 minutes) (press Start again in 240 s, when the game idle the longest may be replaced, or finish a game in another tab)",
        },
      },
    });
    const replies = [await call("hint", { session: a }), await call("hint", { session: b })];
    expect([replies.map((r) => r.status), closedBySeed]).toEqual([[200, 200], []]);
  });

  it("a start past the cap takes the place of the game idle longest once idle 5 minutes", async () => {
    let now = 0;
    const { call, start, closedBySeed } = await playServer(() => now);
    const a = (await start(1)).body.session;
    const b = (await start(2)).body.session;
    now = 4 * MINUTE;
    await call("hint", { session: a });
    now = 5 * MINUTE;
    expect((await start(3)).status).toBe(200);
    expect([closedBySeed, await call("hint", { session: b })]).toEqual([
      [2],
      {
        status: 404,
        retryAfter: null,
        body: {
          error: {
            code: "E_NOT_FOUND",
            message: `play session ${b} was closed: it was idle for 5 minutes or more when a new game needed its place (at most 2 are open at once) (press Start to begin a new game)`,
          },
        },
      },
    ]);
    expect((await call("hint", { session: a })).status).toBe(200);
  });

  it("closes a game idle past 30 minutes and releases its sandbox", async () => {
    let now = 0;
    const { call, start, closedBySeed } = await playServer(() => now);
    const a = (await start(1)).body.session;
    now = 30 * MINUTE;
    expect((await call("hint", { session: a })).status).toBe(200);
    now = 60 * MINUTE + 1;
    const late = await call("reply", { session: a, text: "\\boxed{50}" });
    expect([late.status, late.body.error.message]).toEqual([
      404,
      `play session ${a} was closed: it was idle for more than 30 minutes (press Start to begin a new game)`,
    ]);
    expect(closedBySeed).toEqual([1]);
  });

  it("a page's new start replaces its previous game, and close frees one", async () => {
    const { call, start, closedBySeed } = await playServer(() => 0);
    const a = (await start(1)).body.session;
    const b = (await start(2)).body.session;
    const c = await start(3, a);
    expect([c.status, closedBySeed]).toEqual([200, [1]]);
    expect(await call("close", { session: b })).toEqual({
      status: 200,
      retryAfter: null,
      body: { session: b, closed: true },
    });
    expect([(await start(4)).status, closedBySeed]).toEqual([200, [1, 2]]);
  });
});
