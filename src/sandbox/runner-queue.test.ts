import { afterEach, describe, expect, it, vi } from "vitest";
import { SpadeError } from "../errors.js";
import { Outbox, RequestQueue } from "./runner-queue.js";
import { codeAndMessageOfAsync } from "../../test/assert.js";

interface Numbered {
  t: "call";
  id: number;
}

/** A queue whose hooks record what it sent and how often it killed its runner. */
function recordingQueue(graceMs: number) {
  const sent: number[] = [];
  let kills = 0;
  const queue = new RequestQueue<Numbered, { id: number }>({
    send: (request) => sent.push(request.id),
    kill: () => {
      kills++;
    },
    changed: () => {},
    graceMs,
  });
  const died = () => new SpadeError("E_SANDBOX_MEMORY", "died");
  const collateral = () => new SpadeError("E_SANDBOX_DISPOSED", "collateral");
  return { queue, sent, kills: () => kills, failAll: () => queue.failAll(died, collateral) };
}

/** What a request with a 100 ms deadline rejects with once the watchdog has killed its runner. */
const timedOut = (method: string) => ({
  code: "E_SANDBOX_TIMEOUT",
  message: `${method}() ran past its 100 ms deadline (make the method cheaper or raise the limit)`,
});

describe("RequestQueue's watchdog", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("one timer watches every request; a reply touches it; the oldest due request is the one killed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const { queue, sent, kills, failAll } = recordingQueue(50);
    const a = queue.send({ t: "call" }, "step", 100);
    // Queued behind a: it may start at 100 ms, so it is due at 100 + 100 + 50.
    const b = queue.send({ t: "call" }, "hint", 100);
    expect(sent).toEqual([1, 2]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(120);
    queue.settle({ id: 1 });
    expect(await a).toEqual({ id: 1 });
    expect(vi.getTimerCount()).toBe(1);
    // At 150 the timer finds b, not yet due, and waits for it.
    vi.advanceTimersByTime(129);
    expect(kills()).toBe(0);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(kills()).toBe(1);
    failAll();
    expect(await codeAndMessageOfAsync(b)).toEqual(timedOut("hint"));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a request sent to an idle queue is watched from its own deadline, not a longer one's timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const { queue, kills, failAll } = recordingQueue(50);
    const long = queue.send({ t: "call" }, "reset", 5000);
    vi.advanceTimersByTime(10);
    queue.settle({ id: 1 });
    expect(await long).toEqual({ id: 1 });
    const short = queue.send({ t: "call" }, "step", 100);
    vi.advanceTimersByTime(149);
    expect(kills()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(kills()).toBe(1);
    failAll();
    expect(await codeAndMessageOfAsync(short)).toEqual(timedOut("step"));
  });

  it("a runner that dies with requests pending: the oldest caused it, the rest are collateral", async () => {
    const { queue, failAll } = recordingQueue(50);
    const first = queue.send({ t: "call" }, "step", 100);
    const second = queue.send({ t: "call" }, "step", 100);
    failAll();
    expect(await codeAndMessageOfAsync(first)).toEqual({
      code: "E_SANDBOX_MEMORY",
      message: "died",
    });
    expect(await codeAndMessageOfAsync(second)).toEqual({
      code: "E_SANDBOX_DISPOSED",
      message: "collateral",
    });
  });
});

describe("Outbox", () => {
  it("posts what one event-loop turn queued as one batch, in order, and the next turn apart", async () => {
    const posted: number[][] = [];
    const outbox = new Outbox<number>((messages) => posted.push(messages));
    outbox.push(1);
    outbox.push(2);
    await Promise.resolve();
    outbox.push(3);
    expect(posted).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted).toEqual([[1, 2, 3]]);
    outbox.push(4);
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted).toEqual([[1, 2, 3], [4]]);
  });

  it("flush posts at once and leaves nothing for the end of the turn", async () => {
    const posted: string[][] = [];
    const outbox = new Outbox<string>((messages) => posted.push(messages));
    outbox.push("a");
    outbox.flush();
    expect(posted).toEqual([["a"]]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted).toEqual([["a"]]);
  });
});
