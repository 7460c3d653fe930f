// The resume tests' fault injection: the n-th transaction's writes are rolled back by the kill.
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { killInTransaction } from "./fault-injection.js";
import { RunStore } from "./run-store.js";

const tmp = tempDirsAfterEach("spade-kill-");

describe("killInTransaction", () => {
  it("ends the n-th transaction after its writes and before its commit, and no other", () => {
    const dir = tmp();
    const ends: number[] = [];
    const store = killInTransaction(RunStore.open(dir, "create"), 2, () => {
      ends.push(ends.length + 1);
      throw new Error("killed");
    });
    store.transaction(() => store.setMeta("a", "1"));
    expect(() => store.transaction(() => store.setMeta("b", "2"))).toThrow("killed");
    store.transaction(() => store.setMeta("c", "3"));
    expect([store.getMeta("a"), store.getMeta("b"), store.getMeta("c")]).toEqual([
      "1",
      undefined,
      "3",
    ]);
    expect(ends).toEqual([1]);
    store.close();
  });
});
