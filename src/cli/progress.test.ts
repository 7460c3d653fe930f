import { describe, expect, it } from "vitest";
import { formatBytes, progressBar, progressLine } from "./progress.js";

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { stream: { isTTY, write: (t: string) => written.push(t) }, written };
}

describe("progressLine", () => {
  it("on a TTY rewrites one live line and ends it", () => {
    const { stream, written } = sink(true);
    const p = progressLine(stream);
    p.update("a 1");
    p.update("a 2");
    p.done("a done");
    expect(written).toEqual(["\r\x1b[Ka 1", "\r\x1b[Ka 2", "\r\x1b[Ka done\n"]);
  });

  it("in logs writes plain lines at most every logEveryMs, and always the last", () => {
    const { stream, written } = sink(false);
    let t = 0;
    const p = progressLine(stream, { now: () => t, logEveryMs: 1000 });
    p.update("x 0");
    t = 999;
    p.update("x 999");
    t = 1000;
    p.update("x 1000");
    p.done("x done");
    expect(written).toEqual(["x 0\n", "x 1000\n", "x done\n"]);
  });

  it("clear erases a live line on a TTY and writes nothing in logs", () => {
    const tty = sink(true);
    const p = progressLine(tty.stream);
    p.clear(); // no live line yet
    p.update("step 1/2 playing: episodes 3/8, 1.5 episodes/s");
    p.clear();
    p.clear();
    p.done("step 1/2 | pool 2");
    expect(tty.written).toEqual([
      "\r\x1b[Kstep 1/2 playing: episodes 3/8, 1.5 episodes/s",
      "\r\x1b[K",
      "step 1/2 | pool 2\n",
    ]);
    const log = sink(false);
    const q = progressLine(log.stream, { now: () => 0 });
    q.update("step 1/2 designing: attempts 0/6, 0 valid, - designs/min");
    q.clear();
    q.done("step 1/2 | pool 2");
    expect(log.written).toEqual([
      "step 1/2 designing: attempts 0/6, 0 valid, - designs/min\n",
      "step 1/2 | pool 2\n",
    ]);
  });
});

describe("formatBytes", () => {
  it("writes bytes below 1 KiB as they are and larger sizes in binary units, one decimal", () => {
    expect(
      [0, 1023, 1024, 1536, 398_000_000, 5 * 1024 ** 3, 3 * 1024 ** 4].map(formatBytes),
    ).toEqual(["0 B", "1023 B", "1.0 KiB", "1.5 KiB", "379.6 MiB", "5.0 GiB", "3072.0 GiB"]);
  });
});

describe("progressBar", () => {
  it("fills the share done, rounded, within the width", () => {
    expect(progressBar(0, 8)).toBe("-".repeat(24));
    expect(progressBar(3, 8)).toBe(`${"#".repeat(9)}${"-".repeat(15)}`);
    expect(progressBar(8, 8)).toBe("#".repeat(24));
    expect(progressBar(9, 8, 4)).toBe("####");
  });

  it("is full when there is nothing to do and empty when the total is unknown", () => {
    expect(progressBar(0, 0, 4)).toBe("####");
    expect(progressBar(5, null, 4)).toBe("----");
  });
});
