import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../env/index.js";
import {
  agentChecker,
  aggregateScores,
  checkEndToEnd,
  processAccuracy,
  scoreEntry,
} from "./checker.js";
import { decodeCalls } from "./calls.js";
import { firstPath, loadAceEntries, type AceEntry } from "./data.js";
import { acebenchDir } from "./testing/bench-dir.js";
import { AceWorld } from "./world.js";

/** Runs `messages` (upstream call syntax) on a fresh world of `entry` and scores the result. */
function play(entry: AceEntry, messages: string[]) {
  const world = new AceWorld(entry.lang, entry.involvedClasses, entry.initialConfig);
  const sent: string[] = [];
  for (const m of messages) {
    const calls = decodeCalls(m);
    if (calls === null) continue;
    sent.push(m);
    world.execute(calls, entry.category);
  }
  return scoreEntry(entry, world.savedState(), sent);
}

describe("agentChecker", () => {
  it("compares dict attributes key by key (extra model keys pass) and others with Python ==", () => {
    const expected = {
      FoodPlatform: { users: { Eve: { balance: 412 } }, logged_in_users: ["Eve"] },
    };
    expect(
      agentChecker(
        { FoodPlatform: { users: { Eve: { balance: 412.0 }, Zed: {} }, logged_in_users: ["Eve"] } },
        expected,
      ),
    ).toEqual({ valid: true, errors: [] });
    expect(
      agentChecker(
        { FoodPlatform: { users: { Eve: { balance: 411 } }, logged_in_users: ["Eve"] } },
        expected,
      ).errors,
    ).toEqual(["class(FoodPlatform) attributes(users.Eve) wrong"]);
    expect(
      agentChecker({ FoodPlatform: { users: {}, logged_in_users: [] } }, expected).errors,
    ).toEqual([
      "class(FoodPlatform) attributes(users) wrong: Eve missing",
      "class(FoodPlatform) attributes(logged_in_users) wrong",
    ]);
    // True == 1 in Python.
    expect(agentChecker({ BaseApi: { wifi: 1 } }, { BaseApi: { wifi: true } }).valid).toBe(true);
    expect(
      agentChecker({ BaseApi: { wifi: true, extra: 1 } }, { BaseApi: { wifi: true } }).errors,
    ).toEqual(["class(BaseApi) attributes(extra) missing in possible_answer."]);
  });

  it("checkEndToEnd needs the same number of classes and pairs them by name", () => {
    const gt: JsonObject[] = [{ BaseApi: { wifi: true } }, { MessageApi: { inbox: {} } }];
    expect(
      checkEndToEnd([{ MessageApi: { inbox: {} } }, { BaseApi: { wifi: true } }], gt).valid,
    ).toBe(true);
    expect(checkEndToEnd([{ BaseApi: { wifi: true } }], gt).errors).toEqual([
      "wrong number of class",
    ]);
    expect(checkEndToEnd([], [])).toEqual({ valid: true, errors: [] });
    const misspelled: JsonObject[] = [{ BaseApi: { wifi: true } }, { MessageAPI: { inbox: {} } }];
    expect(checkEndToEnd(gt, misspelled).valid).toBe(false);
    expect(checkEndToEnd(gt, misspelled, "carry").valid).toBe(true);
  });
});

describe("processAccuracy", () => {
  it("counts milestones found in order (whitespace-trimmed), unrounded for one path", () => {
    expect(processAccuracy(["[a()]", "[b()]", " [c()] "], ["[a()]", "[b()]", "[c()]"])).toBe(1);
    // A milestone that is never found uses up the rest of the messages (upstream's search).
    expect(processAccuracy(["[a()]", "[x()]", "[c()]"], ["[a()]", "[b()]", "[c()]"])).toBe(1 / 3);
    expect(processAccuracy(["[c()]", "[a()]"], ["[a()]", "[c()]"])).toBe(0.5);
    expect(processAccuracy([], [])).toBe(1);
  });

  it("takes the best path, rounded to 3 places, with several", () => {
    expect(
      processAccuracy(
        ["[a()]", "[c()]"],
        [
          ["[a()]", "[b()]", "[c()]"],
          ["[a()]", "[c()]", "[d()]"],
        ],
      ),
    ).toBe(0.667);
  });

  it("aggregates like upstream: rounded end-to-end rate and mean process score", () => {
    expect(
      aggregateScores([
        { id: "a", endToEnd: true, process: 1 },
        { id: "b", endToEnd: false, process: 0.5 },
        { id: "c", endToEnd: false, process: 1 / 3 },
      ]),
    ).toEqual({ endToEndAccuracy: 0.333, processAccuracy: 0.611, correct: 1, total: 3 });
  });
});

describe("scoring perturbed call sequences on real entries", () => {
  const dir = acebenchDir();
  const enTurn = loadAceEntries(dir, "en", "multi_turn");
  const enStep = loadAceEntries(dir, "en", "multi_step");

  it("the milestones score 1/1; dropping a state-changing call fails end to end", () => {
    const entry = enTurn[0]!; // wifi on, earliest id, delete 3, send a message
    const path = firstPath(entry.mileStone);
    expect(play(entry, path)).toMatchObject({ endToEnd: true, process: 1 });
    expect(play(entry, path.slice(0, 3))).toMatchObject({ endToEnd: false, process: 0.75 });
    // A read-only call dropped: the state is still right, so the process score is 1 as well.
    expect(play(entry, [path[0]!, path[2]!, path[3]!])).toMatchObject({
      endToEnd: true,
      process: 1,
    });
  });

  it("wrong argument values or order change the state and the process score", () => {
    const entry = enTurn[0]!;
    const [wifi, earliest, del, send] = firstPath(entry.mileStone) as [
      string,
      string,
      string,
      string,
    ];
    // The missed milestone (delete 3) uses up the rest, so the send is not credited either.
    expect(play(entry, [wifi, earliest, "[delete_message(message_id=4)]", send])).toMatchObject({
      endToEnd: false,
      process: 0.5,
    });
    // Sending before deleting fails (the inbox is full); three milestones still appear in order.
    expect(play(entry, [wifi, send, earliest, del])).toMatchObject({
      endToEnd: false,
      process: 0.75,
    });
    expect(play(entry, [earliest, del, send, wifi])).toMatchObject({
      endToEnd: false,
      process: 0.25,
    });
    expect(play(entry, [])).toMatchObject({ endToEnd: false, process: 0 });
  });

  it("extra calls that do not change the state keep the entry correct", () => {
    const entry = enTurn[20]!; // Travel: search, then book
    const path = firstPath(entry.mileStone);
    expect(
      play(entry, [
        "[get_flight_details(origin='Beijing')]",
        ...path,
        "[get_reservation_details(user_id='user2')]",
      ]),
    ).toMatchObject({ endToEnd: true, process: 1 });
    expect(play(entry, [...path, path[1]!])).toMatchObject({ endToEnd: false, process: 1 });
  });

  it("an entry with alternative paths accepts the second path", () => {
    const entry = enStep[6]!;
    const second = (entry.mileStone as string[][])[1]!;
    expect(
      play(
        entry,
        second.map((m) => m.trim()),
      ),
    ).toMatchObject({ endToEnd: true, process: 1 });
    const partial = play(entry, second.slice(0, 2));
    expect(partial.endToEnd).toBe(false);
    expect(partial.process).toBe(0.333);
  });
});
