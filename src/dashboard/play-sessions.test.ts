// The Play page's sessions: the cap on open environments holds when starts arrive together.
import { describe, expect, it } from "vitest";
import { makeTestEnv } from "../env/testing/test-env.js";
import { PlaySessions } from "./play-sessions.js";

describe("PlaySessions", () => {
  it("keeps at most `max` environments open however many starts arrive at once", async () => {
    let open = 0;
    let mostOpen = 0;
    // TEST DOUBLE: an environment that takes a macrotask to open and counts the open ones.
    const opener = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      open++;
      mostOpen = Math.max(mostOpen, open);
      return { ...makeTestEnv(), close: async () => void open-- };
    };
    const sessions = new PlaySessions(2);
    const views = await Promise.all(Array.from({ length: 10 }, () => sessions.start(opener, 1)));
    expect([new Set(views.map((v) => v.session)).size, mostOpen, open]).toEqual([10, 2, 2]);
    await sessions.closeAll();
    expect(open).toBe(0);
  });

  it("a start whose environment fails to open does not stop the next one", async () => {
    const sessions = new PlaySessions(2);
    const failing = sessions.start(() => Promise.reject(new Error("no sandbox")), 1);
    const next = sessions.start(async () => makeTestEnv(), 1);
    await expect(failing).rejects.toThrow("no sandbox");
    expect((await next).name).toBe("guess-number");
    await sessions.closeAll();
  });
});
