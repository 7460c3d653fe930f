import { describe, expect, it, vi } from "vitest";
import { SharedLane } from "./shared-lane.js";

/** A lane's writer and reader over one small ring, with the port as an array (a test double). */
function lanePair(ringBytes: number) {
  const buffer = new SharedArrayBuffer(16 + ringBytes);
  const port: string[] = [];
  const posted: string[] = [];
  const writer = new SharedLane(
    buffer,
    0,
    16,
    ringBytes,
    (text) => {
      port.push(text);
      posted.push(text);
    },
    () => undefined,
  );
  const reader = new SharedLane(
    buffer,
    0,
    16,
    ringBytes,
    () => {},
    () => port.shift(),
  );
  return { writer, reader, posted };
}

describe("SharedLane", () => {
  it("hands records over in order through the ring, wrapping around it", () => {
    const { writer, reader, posted } = lanePair(64);
    const received: string[] = [];
    // 12 to 24 bytes a record (8 of header) in a 64-byte ring: the tail wraps many times.
    for (let i = 0; i < 50; i++) {
      writer.send(`r${i}-${"x".repeat(i % 9)}`);
      received.push(reader.receive() as string);
    }
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}-${"x".repeat(i % 9)}`));
    expect(posted).toEqual([]);
    expect(reader.receive()).toBeUndefined();
    expect(reader.ready).toBe(false);
  });

  it("posts what the ring has no room for and still delivers in the writer's order", () => {
    const { writer, reader, posted } = lanePair(64);
    const big = "b".repeat(100);
    writer.send("one");
    writer.send(big);
    writer.send("three");
    // 36 bytes after "one" and "three" (28): past the 60 a ring of 64 lets the tail reach.
    writer.send("four-is-longer-than-the-rest");
    writer.send("five");
    expect(posted).toEqual([big, "four-is-longer-than-the-rest"]);
    expect([1, 2, 3, 4, 5].map(() => reader.receive())).toEqual([
      "one",
      big,
      "three",
      "four-is-longer-than-the-rest",
      "five",
    ]);
    expect(reader.receive()).toBeUndefined();
  });

  it("counts UTF-8 bytes, not UTF-16 units, for what fits", () => {
    // A 32-byte ring holds at most 20 bytes of text in one record.
    const { writer, reader, posted } = lanePair(32);
    const accents = "é".repeat(12); // 12 units, 24 bytes
    const emoji = "🎲".repeat(2); // 4 units, 8 bytes
    writer.send(accents);
    writer.send(emoji);
    expect(posted).toEqual([accents]);
    expect(reader.receive()).toBe(accents);
    expect(reader.receive()).toBe(emoji);
  });

  it("throws when a record counted as sent is in neither the ring nor the port", () => {
    const buffer = new SharedArrayBuffer(16 + 64);
    const writer = new SharedLane(
      buffer,
      0,
      16,
      64,
      () => {},
      () => undefined,
    );
    const reader = new SharedLane(
      buffer,
      0,
      16,
      64,
      () => {},
      () => undefined,
    );
    writer.send("x".repeat(200)); // posted to a port that drops it
    expect(() => reader.receive()).toThrow("shared lane: record 1 is missing");
  });

  it("keeps the two lanes of one buffer apart", () => {
    const buffer = new SharedArrayBuffer(32 + 2 * 64);
    const lane = (index: number) =>
      new SharedLane(
        buffer,
        index,
        32,
        64,
        () => {},
        () => undefined,
      );
    const [toWorker, toHost] = [lane(0), lane(1)];
    const [workerSide, hostSide] = [lane(0), lane(1)];
    toWorker.send("request");
    toHost.send("reply");
    expect(hostSide.receive()).toBe("reply");
    expect(hostSide.receive()).toBeUndefined();
    expect(workerSide.receive()).toBe("request");
  });

  it("resolves waitAsync on a wake after a send, and answers at once when a record is ready", async () => {
    const { writer, reader } = lanePair(64);
    const waiting = reader.waitAsync();
    expect(waiting).toBeInstanceOf(Promise);
    writer.send("ping");
    writer.wake();
    expect(await waiting).toBe("ok");
    reader.awake();
    expect(reader.waitAsync()).toBeUndefined();
    expect(reader.receive()).toBe("ping");
  });

  it("spins only while spins pay: after an empty one it skips the next, then 2, then 4", () => {
    const { reader } = lanePair(64);
    // A clock that moves 1 ms a reading: a spin reads it, a skipped spin does not, whatever the load.
    let clock = 0;
    const now = vi.spyOn(performance, "now").mockImplementation(() => ++clock);
    const spins: boolean[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const readings = clock;
        expect(reader.spin(2000)).toBe(false);
        spins.push(clock > readings);
      }
    } finally {
      now.mockRestore();
    }
    // spin, skip 1, spin, skip 2, spin, skip 4, spin
    expect(spins).toEqual([true, false, true, false, false, true, false, false, false, false]);
  });
});
