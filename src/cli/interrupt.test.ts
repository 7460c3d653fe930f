// The one Ctrl-C handler: the first signal aborts and removes the handler; dispose removes it too,
// and withInterrupt disposes when its body ends, resolved or rejected.
import { afterEach, describe, expect, it, vi } from "vitest";
import { interruptSignal, withInterrupt } from "./interrupt.js";

afterEach(() => vi.restoreAllMocks());

describe("interruptSignal", () => {
  it("aborts on the first SIGINT with the notice, then leaves the next one to the default", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const before = process.listenerCount("SIGINT");
    const interrupt = interruptSignal("spade x: stopping");
    expect([process.listenerCount("SIGINT"), process.listenerCount("SIGTERM") > 0]).toEqual([
      before + 1,
      true,
    ]);
    process.emit("SIGINT");
    expect(interrupt.signal.aborted).toBe(true);
    expect(written).toEqual(["\nspade x: stopping\n"]);
    expect(process.listenerCount("SIGINT")).toBe(before);
  });

  it("removes itself on dispose without aborting", () => {
    const before = process.listenerCount("SIGTERM");
    const interrupt = interruptSignal("n");
    interrupt.dispose();
    expect([process.listenerCount("SIGTERM"), interrupt.signal.aborted]).toEqual([before, false]);
  });
});

describe("withInterrupt", () => {
  it("hands the body the signal, returns its value and removes the handler", async () => {
    const before = process.listenerCount("SIGINT");
    let during = -1;
    const value = await withInterrupt("n", async (signal) => {
      during = process.listenerCount("SIGINT");
      return signal.aborted ? "aborted" : "ran";
    });
    expect([value, during, process.listenerCount("SIGINT")]).toEqual(["ran", before + 1, before]);
  });

  it("removes the handler when the body throws, and the error goes on", async () => {
    const before = process.listenerCount("SIGTERM");
    const failing = withInterrupt("n", async () => {
      throw new Error("body failed");
    });
    await expect(failing).rejects.toThrow("body failed");
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });

  it("aborts the body's signal on Ctrl-C while it runs", async () => {
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const seen = await withInterrupt("spade y: stopping", async (signal) => {
      process.emit("SIGINT");
      return signal.aborted;
    });
    expect(seen).toBe(true);
  });
});
