// Test cleanup: a file's folder lasts for its tests, a callback's goes with it, fresh folders go
// after their test, a server started through closedAfterEach is closed after its test, what is
// added to a releasedAfterEach list is released after its test, and an
// environment variable stubbed with vi.stubEnv is back after its test (vitest.config.ts: unstubEnvs).
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  closedAfterEach,
  fileTempDir,
  releasedAfterEach,
  tempDirsAfterEach,
  withTempDir,
} from "./cleanup.js";

const shared = fileTempDir("spade-temp-dir-test-");

describe("fileTempDir", () => {
  it("makes an empty folder named after the prefix that the file's tests share", () => {
    expect([basename(shared).startsWith("spade-temp-dir-test-"), readdirSync(shared)]).toEqual([
      true,
      [],
    ]);
    writeFileSync(join(shared, "a.txt"), "a");
  });

  it("keeps what an earlier test wrote", () => {
    expect(readdirSync(shared)).toEqual(["a.txt"]);
  });
});

describe("withTempDir", () => {
  it("hands the body a fresh folder, returns its value and removes the folder", async () => {
    let seen = "";
    const value = await withTempDir("spade-with-temp-", async (dir) => {
      seen = dir;
      writeFileSync(join(dir, "x"), "x");
      return statSync(dir).isDirectory();
    });
    expect([value, basename(seen).startsWith("spade-with-temp-"), existsSync(seen)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("removes the folder when the body throws, and the error goes on", async () => {
    let seen = "";
    const failing = withTempDir("spade-with-temp-", async (dir) => {
      seen = dir;
      throw new Error("body failed");
    });
    await expect(failing).rejects.toThrow("body failed");
    expect(existsSync(seen)).toBe(false);
  });
});

describe("tempDirsAfterEach", () => {
  const fresh = tempDirsAfterEach("spade-fresh-temp-");
  const seen: string[] = [];

  it("makes a new empty folder named after the prefix on every call", () => {
    seen.push(fresh(), fresh());
    writeFileSync(join(seen[0]!, "x"), "x");
    expect([
      seen.map((dir) => basename(dir).startsWith("spade-fresh-temp-")),
      seen[0] === seen[1],
      readdirSync(seen[1]!),
    ]).toEqual([[true, true], false, []]);
  });

  it("removed the folders the previous test made", () => {
    expect(seen.map((dir) => existsSync(dir))).toEqual([false, false]);
  });
});

describe("closedAfterEach", () => {
  const closed: string[] = [];
  const start = closedAfterEach(async (name: string) => ({
    name,
    close: async () => {
      closed.push(name);
    },
  }));

  it("passes the arguments on and returns what was started, still open", async () => {
    const [a, b] = [await start("a"), await start("b")];
    expect([a.name, b.name, closed]).toEqual(["a", "b", []]);
  });

  it("closed what the previous test started, and only that", async () => {
    expect(closed).toEqual(["a", "b"]);
    await start("c");
    expect(closed).toEqual(["a", "b"]);
  });
});

describe("releasedAfterEach", () => {
  const released: string[] = [];
  const held = releasedAfterEach(async (name: string) => {
    released.push(name);
  });

  it("holds what the test adds until the test ends", () => {
    held.push("a", "b");
    expect([held, released]).toEqual([["a", "b"], []]);
  });

  it("released what the previous test added, in its order, and emptied the list", () => {
    expect([held, released]).toEqual([[], ["a", "b"]]);
  });
});

describe("vi.stubEnv", () => {
  const before = process.env.SPADE_DATA_DIR;

  it("sets the variable for the test that stubs it", () => {
    vi.stubEnv("SPADE_DATA_DIR", "/stubbed/benchmarks");
    vi.stubEnv("SPADE_STUB_ONLY", "1");
    expect([process.env.SPADE_DATA_DIR, process.env.SPADE_STUB_ONLY]).toEqual([
      "/stubbed/benchmarks",
      "1",
    ]);
  });

  it("finds the previous test's stubs undone without an afterEach", () => {
    expect([process.env.SPADE_DATA_DIR, process.env.SPADE_STUB_ONLY]).toEqual([before, undefined]);
  });
});
