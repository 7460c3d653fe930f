import { describe, expect, it } from "vitest";
import { Outbox } from "./host.js";

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
