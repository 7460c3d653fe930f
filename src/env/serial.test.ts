import { describe, expect, it } from "vitest";
import { SerialQueue } from "./serial.js";

describe("SerialQueue", () => {
  it("runs tasks one at a time in order, past a failing one", async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const task =
      (name: string, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run(task("a")),
      queue.run(task("b", true)),
      queue.run(task("c")),
    ]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });

  it("refuses a task when the refusal says so as it is about to start", async () => {
    let closed = false;
    const queue = new SerialQueue(() => (closed ? new Error("closed") : null));
    const first = queue.run(async () => {
      closed = true;
      return 1;
    });
    const second = queue.run(async () => 2);
    expect(await first).toBe(1);
    await expect(second).rejects.toThrow("closed");
  });
});
