// Capacity and idle reaping with an injected clock.
import { describe, expect, it } from "vitest";
import { CapacityError, SessionRegistry } from "./registry.js";
import type { EnvSession } from "./session.js";
import { thrown } from "../../test/assert.js";

/** TEST DOUBLE: a session that records being closed. */
function fakeSession(id: string, closed: string[]): EnvSession {
  return { id, close: async () => void closed.push(id) } as unknown as EnvSession;
}

describe("SessionRegistry", () => {
  it("refuses the slot beyond maxSessions with the counts, and frees slots on release", async () => {
    const reg = new SessionRegistry(2, null, () => 0);
    reg.reserve("a");
    reg.reserve("b");
    const caught = thrown(() => reg.reserve("c"));
    expect(caught).toBeInstanceOf(CapacityError);
    expect([
      (caught as CapacityError).activeSessions,
      (caught as CapacityError).maxSessions,
    ]).toEqual([2, 2]);
    await reg.release("a");
    reg.reserve("c");
    expect(reg.active).toBe(2);
  });

  it("a slot released while its session opened is not filled", async () => {
    const closed: string[] = [];
    const reg = new SessionRegistry(1, null, () => 0);
    reg.reserve("a");
    await reg.release("a");
    expect(reg.fill("a", fakeSession("a", closed))).toBe(false);
    expect(reg.active).toBe(0);
  });

  it("reaps open sessions idle for longer than the timeout, not those touched since, nor slots still opening", async () => {
    let now = 0;
    const closed: string[] = [];
    const reaped: string[] = [];
    const reg = new SessionRegistry(4, 1000, () => now);
    for (const id of ["idle", "busy", "opening"]) reg.reserve(id, () => reaped.push(id));
    reg.fill("idle", fakeSession("idle", closed));
    reg.fill("busy", fakeSession("busy", closed));
    now = 1000;
    expect(await reg.reapIdle()).toEqual([]);
    now = 1500;
    reg.touch("busy");
    now = 2001;
    expect(await reg.reapIdle()).toEqual(["idle"]);
    expect([closed, reaped, reg.active]).toEqual([["idle"], ["idle"], 2]);
  });

  it("never reaps without a timeout", async () => {
    let now = 0;
    const reg = new SessionRegistry(1, null, () => now);
    reg.reserve("a");
    reg.fill("a", fakeSession("a", []));
    now = 1e12;
    expect(await reg.reapIdle()).toEqual([]);
  });
});
