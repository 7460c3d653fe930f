// The Play page's sessions on a fake clock: the cap holds when starts arrive together, idle games
// are closed, a start past the cap replaces only an idle game and is refused when all are in use.
import { describe, expect, it } from "vitest";
import type { Env } from "../env/index.js";
import { makeTestEnv } from "../env/testing/test-env.js";
import { codeAndMessageOfAsync, rejected } from "../../test/assert.js";
import { PlayCapacityError, PlaySessions } from "./play-sessions.js";

const MINUTE = 60_000;

/** TEST DOUBLE: an opener of test environments that records, by start order, which were closed. */
function recordingOpener() {
  const closed: number[] = [];
  let opened = 0;
  const open = async (): Promise<Env> => {
    const n = opened++;
    return { ...makeTestEnv(), close: async () => void closed.push(n) };
  };
  return { open, closed };
}

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
    // Every game may be replaced at once, so each start takes the place of the oldest.
    const sessions = new PlaySessions({ maxSessions: 2, replaceIdleMs: 0 }, () => 0);
    const views = await Promise.all(Array.from({ length: 10 }, () => sessions.start(opener, 1)));
    expect([new Set(views.map((v) => v.session)).size, mostOpen, open]).toEqual([10, 2, 2]);
    await sessions.closeAll();
    expect(open).toBe(0);
  });

  it("a start whose environment fails to open does not stop the next one", async () => {
    const sessions = new PlaySessions({ maxSessions: 2 }, () => 0);
    const failing = sessions.start(() => Promise.reject(new Error("no sandbox")), 1);
    const next = sessions.start(async () => makeTestEnv(), 1);
    await expect(failing).rejects.toThrow("no sandbox");
    expect((await next).name).toBe("guess-number");
    await sessions.closeAll();
  });

  it("closes games idle past the timeout and releases their sandboxes; a move keeps one open", async () => {
    let now = 0;
    const { open, closed } = recordingOpener();
    const sessions = new PlaySessions({ idleTimeoutMs: 30 * MINUTE }, () => now);
    const idle = (await sessions.start(open, 1)).session;
    const played = (await sessions.start(open, 1)).session;
    now = 20 * MINUTE;
    await sessions.reply(played, "\\boxed{50}");
    now = 30 * MINUTE;
    expect(await sessions.reapIdle()).toEqual([]); // idle for exactly the timeout: not past it
    now = 30 * MINUTE + 1;
    expect([await sessions.reapIdle(), closed]).toEqual([[idle], [0]]);
    expect(await codeAndMessageOfAsync(sessions.hint(idle))).toEqual({
      code: "E_NOT_FOUND",
      message: `play session ${idle} was closed: it was idle for more than 30 minutes (press Start to begin a new game)`,
    });
    expect((await sessions.hint(played)).turns).toBe(1);
    // A game past the timeout is closed when it is next used, whether or not the reaper ran.
    now += 30 * MINUTE + 1;
    expect((await codeAndMessageOfAsync(sessions.hint(played))).message).toBe(
      `play session ${played} was closed: it was idle for more than 30 minutes (press Start to begin a new game)`,
    );
    expect(closed).toEqual([0, 1]);
  });

  it("a start past the cap replaces the least recently used game idle 5 minutes, never one in use", async () => {
    let now = 0;
    const { open, closed } = recordingOpener();
    const sessions = new PlaySessions({ maxSessions: 2 }, () => now);
    const a = (await sessions.start(open, 1)).session;
    now = 1000;
    const b = (await sessions.start(open, 1)).session;
    now = 2000;
    await sessions.reply(a, "\\boxed{50}"); // b is now the least recently used
    now = 4 * MINUTE;
    const refused = await rejected(sessions.start(open, 1));
    expect(refused).toBeInstanceOf(PlayCapacityError);
    expect(refused).toMatchObject({
      code: "E_CAPACITY",
      retryAfterS: 61, // b may be replaced 5 minutes after its start at 1 s
      message:
        "all 2 Play games are in use (each was played in the last 5 minutes) (press Start again in 61 s, when the game idle the longest may be replaced, or finish a game in another tab)",
    });
    expect(closed).toEqual([]);
    now = 5 * MINUTE + 1000;
    await sessions.start(open, 1);
    expect(closed).toEqual([1]);
    expect((await codeAndMessageOfAsync(sessions.hint(b))).message).toBe(
      `play session ${b} was closed: it was idle for 5 minutes or more when a new game needed its place (at most 2 are open at once) (press Start to begin a new game)`,
    );
    expect((await sessions.hint(a)).name).toBe("guess-number");
    await sessions.closeAll();
  });

  it("never closes or replaces a game while a call on it runs", async () => {
    let now = 0;
    let finishStep = () => {};
    const stepping = new Promise<void>((resolve) => (finishStep = resolve));
    const closed: string[] = [];
    // TEST DOUBLE: an environment whose step waits until the test lets it finish.
    const slow = async (): Promise<Env> => {
      const env = makeTestEnv();
      return {
        ...env,
        step: async (action) => (await stepping, env.step(action)),
        close: async () => void closed.push("slow"),
      };
    };
    const sessions = new PlaySessions({ maxSessions: 1, idleTimeoutMs: MINUTE }, () => now);
    const id = (await sessions.start(slow, 1)).session;
    const reply = sessions.reply(id, "\\boxed{50}");
    now = 10 * MINUTE;
    expect(await sessions.reapIdle()).toEqual([]);
    const refused = await rejected(sessions.start(slow, 1));
    expect([
      (refused as PlayCapacityError).code,
      (refused as PlayCapacityError).retryAfterS,
    ]).toEqual(["E_CAPACITY", 60]);
    finishStep();
    expect([(await reply).turns, closed]).toEqual([1, []]);
    now += MINUTE + 1; // idle past the timeout since the step ended
    expect(await sessions.reapIdle()).toEqual([id]);
    expect(closed).toEqual(["slow"]);
  });

  it("a start that replaces the page's previous game fits under the cap, and close frees a game", async () => {
    const { open, closed } = recordingOpener();
    const sessions = new PlaySessions({ maxSessions: 1 }, () => 0);
    const first = (await sessions.start(open, 1)).session;
    const second = (await sessions.start(open, 2, first)).session;
    expect(closed).toEqual([0]);
    expect((await codeAndMessageOfAsync(sessions.hint(first))).message).toBe(
      `play session ${first} was closed: its page started another game in its place (press Start to begin a new game)`,
    );
    expect([await sessions.close(second), await sessions.close(second), closed]).toEqual([
      true,
      false,
      [0, 1],
    ]);
    expect((await sessions.start(open, 3)).seed).toBe(3);
    await sessions.closeAll();
  });
});
