import { describe, expect, it } from "vitest";
import { isSpadeError } from "../errors.js";
import { Limiter, mapLimit, sharedLimiter } from "./limiter.js";
import { inFlightGauge } from "../../test/in-flight.js";

/** Lets pending promise callbacks run. */
const flush = () => new Promise((r) => setImmediate(r));

describe("Limiter", () => {
  it("grants up to capacity at once and serves waiters first-in, first-out", async () => {
    const limiter = new Limiter(2);
    const order: string[] = [];
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    const waiters = ["c", "d", "e"].map((name) =>
      limiter.acquire().then((release) => (order.push(name), release)),
    );
    await flush();
    expect([limiter.active, limiter.waiting, order]).toEqual([2, 3, []]);
    b();
    await flush();
    expect(order).toEqual(["c"]);
    a();
    a(); // a second release of the same slot changes nothing
    await flush();
    expect([limiter.active, limiter.waiting, order]).toEqual([2, 1, ["c", "d"]]);
    const [c, d] = await Promise.all(waiters.slice(0, 2));
    c!();
    const e = await waiters[2]!;
    d!();
    e();
    expect([limiter.active, limiter.waiting, order]).toEqual([0, 0, ["c", "d", "e"]]);
  });

  it("does not let a newcomer overtake a waiter when a slot frees", async () => {
    const limiter = new Limiter(1);
    const first = await limiter.acquire();
    const order: string[] = [];
    const queued = limiter.acquire().then((r) => (order.push("queued"), r));
    first();
    const late = limiter.acquire().then((r) => (order.push("late"), r));
    (await queued)();
    (await late)();
    expect(order).toEqual(["queued", "late"]);
  });

  it("removes an aborted waiter from the queue with E_CANCELLED and holds nothing for it", async () => {
    const limiter = new Limiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    controller.abort();
    const err = await aborted.catch((e: unknown) => e);
    expect(isSpadeError(err, "E_CANCELLED")).toBe(true);
    expect(limiter.waiting).toBe(1);
    held();
    (await next)();
    expect(limiter.active).toBe(0);
    const pre = new AbortController();
    pre.abort();
    expect(
      isSpadeError(await limiter.acquire(pre.signal).catch((e: unknown) => e), "E_CANCELLED"),
    ).toBe(true);
  });

  it("run releases on success and on failure", async () => {
    const limiter = new Limiter(1);
    expect(await limiter.run(async () => 7)).toBe(7);
    await expect(
      limiter.run(async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(limiter.active).toBe(0);
  });

  it("rejects a bad capacity and conflicting shared capacities with E_CONFIG", () => {
    expect(() => new Limiter(0)).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
    const a = sharedLimiter("limiter-test-key", 3);
    expect(sharedLimiter("limiter-test-key", 3)).toBe(a);
    expect(() => sharedLimiter("limiter-test-key", 4)).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });

  it("mapLimit runs at most n tasks at once and keeps result order", async () => {
    const tasks = inFlightGauge();
    const results = await mapLimit([5, 1, 4, 2, 3], 2, (ms, i) => tasks.hold(ms, () => i));
    expect(results).toEqual([0, 1, 2, 3, 4]);
    expect(tasks.most).toBe(2);
    await expect(mapLimit([1], 1, async () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
  });
});
