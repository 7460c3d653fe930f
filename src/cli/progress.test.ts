import { describe, expect, it } from "vitest";
import { formatBytes, itemProgress, progressBar, progressLine } from "./progress.js";

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

describe("itemProgress", () => {
  it("in logs writes an item's line at most once a second, and the last item's always", () => {
    const { stream, written } = sink(false);
    let t = 5_000;
    const p = itemProgress(stream, { now: () => t });
    p.item("[gsm8k] 1/4 items", 1, 4); // the first, whatever the clock says
    t = 5_999;
    p.item("[gsm8k] 2/4 items", 2, 4);
    t = 6_000;
    p.item("[gsm8k] 3/4 items", 3, 4);
    t = 6_001;
    p.item("[gsm8k] 4/4 items", 4, 4); // the last, 1 ms after the one before
    p.clear();
    expect(written).toEqual(["[gsm8k] 1/4 items\n", "[gsm8k] 3/4 items\n", "[gsm8k] 4/4 items\n"]);
  });

  it("takes another interval, and on a TTY shows every item live and ends with the last", () => {
    const log = sink(false);
    let t = 0;
    const p = itemProgress(log.stream, { now: () => t, logEveryMs: 10 });
    p.item("a 1/3", 1, 3);
    t = 10;
    p.item("a 2/3", 2, 3);
    p.item("a 3/3", 3, 3);
    expect(log.written).toEqual(["a 1/3\n", "a 2/3\n", "a 3/3\n"]);
    const tty = sink(true);
    const q = itemProgress(tty.stream, { now: () => 0 });
    q.item("b 1/2", 1, 2);
    q.item("b 2/2", 2, 2);
    q.clear(); // nothing left to erase
    expect(tty.written).toEqual(["\r\x1b[Kb 1/2", "\r\x1b[Kb 2/2\n"]);
  });

  it("clear erases the live line of work cut short", () => {
    const { stream, written } = sink(true);
    const p = itemProgress(stream);
    p.item("c 1/5", 1, 5);
    p.clear();
    expect(written).toEqual(["\r\x1b[Kc 1/5", "\r\x1b[K"]);
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
