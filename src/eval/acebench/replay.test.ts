import { describe, expect, it } from "vitest";
import {
  ACE_SETS,
  aggregateScores,
  loadAceEntries,
  loadReplaySummary,
  replayEntry,
  summaryKey,
} from "./index.js";
import { acebenchDir } from "./testing/bench-dir.js";

const dir = acebenchDir();

describe("milestone replay against the reference summary", () => {
  const summary = loadReplaySummary(dir);

  for (const { lang, category } of ACE_SETS) {
    it(`${lang}/${category}: every entry reaches (or misses) its ground truth exactly as the summary says`, () => {
      const expected = summary.get(summaryKey(lang, category));
      const entries = loadAceEntries(dir, lang, category);
      const results = entries.map((e) => replayEntry(e));
      expect(results.length).toBe(expected?.entries);
      expect(results.filter((r) => !r.endToEnd).map((r) => r.id)).toEqual(expected?.failingIds);
      expect(results.filter((r) => r.endToEnd).length).toBe(expected?.replayStateMatch);
    });
  }

  it("69 of the 100 entries reach their ground truth", () => {
    const matched = ACE_SETS.flatMap(({ lang, category }) =>
      loadAceEntries(dir, lang, category).map((e) => replayEntry(e).endToEnd),
    );
    expect(matched.length).toBe(100);
    expect(matched.filter(Boolean).length).toBe(69);
  });
});

describe("scores of the ground-truth replay", () => {
  it("gives upstream's end-to-end and process accuracies per set", () => {
    const scores = ACE_SETS.map(({ lang, category }) =>
      aggregateScores(loadAceEntries(dir, lang, category).map((e) => replayEntry(e))),
    );
    expect(scores.map((s) => [s.endToEndAccuracy, s.processAccuracy])).toEqual([
      [0.667, 0.89],
      [0.5, 0.912],
      [0.9, 1],
      [0.6, 1],
    ]);
  });

  it("scores a defective entry's process by the milestones upstream can decode", () => {
    const entries = loadAceEntries(dir, "en", "multi_turn");
    // agent_multi_turn_8: one of four milestones has merchant_name='Domino's' (invalid Python).
    const r8 = replayEntry(entries[8]!);
    expect(r8.undecodable).toEqual([
      "[add_food_delivery_order(username='Grace', merchant_name='Domino's', items=[{'product': 'Margherita Pizza', 'quantity': 1}])]",
    ]);
    expect([r8.endToEnd, r8.process]).toEqual([false, 0.75]);
    // agent_multi_turn_6: every milestone runs, but the device is never logged in.
    const r6 = replayEntry(entries[6]!);
    expect([r6.endToEnd, r6.process, r6.undecodable.length]).toEqual([false, 1, 0]);
    expect(r6.errors).toEqual([
      "class(BaseApi) attributes(logged_in) wrong",
      "class(ReminderApi) attributes(reminder_list) wrong: 4 missing",
    ]);
  });

  it("fails a misspelled class by default and lets it pass under upstream's literal agent_eval loop", () => {
    const zhStep = loadAceEntries(dir, "zh", "multi_step");
    const r1 = replayEntry(zhStep[1]!);
    expect(r1.errors).toEqual(["class(ReminderAPI) not in the model's state"]);
    expect(replayEntry(zhStep[1]!, { missingClass: "carry" }).endToEnd).toBe(true);
  });

  it("the fork's corrected answers do not change any outcome (the states still disagree with the milestones)", () => {
    const fixed = loadAceEntries(dir, "en", "multi_step", { answers: "fork-fix" });
    const upstream = loadAceEntries(dir, "en", "multi_step");
    expect(
      fixed
        .filter(
          (e, i) => JSON.stringify(e.groundTruth) !== JSON.stringify(upstream[i]!.groundTruth),
        )
        .map((e) => e.id),
    ).toEqual([
      "agent_multi_step_14",
      "agent_multi_step_15",
      "agent_multi_step_16",
      "agent_multi_step_17",
    ]);
    expect(fixed.map((e) => replayEntry(e).endToEnd)).toEqual(
      upstream.map((e) => replayEntry(e).endToEnd),
    );
  });
});
