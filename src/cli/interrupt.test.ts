// The one Ctrl-C handler: the first signal aborts and removes the handler; dispose removes it too.
import { afterEach, describe, expect, it, vi } from "vitest";
import { interruptSignal } from "./interrupt.js";

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
