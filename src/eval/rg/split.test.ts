import { describe, expect, it } from "vitest";
import { isSpadeError } from "../../errors.js";
import { loadHardSplit, parseHardSplit, rgPrompt, rollup } from "./split.js";
import { BENCHMARKS_DIR, RG_DATA_PRESENT, RG_MISSING } from "./testing/paths.js";
import { skipWithout } from "../../../test/missing.js";

describe("the hard split", () => {
  it.skipIf(skipWithout(RG_DATA_PRESENT ? null : RG_MISSING))(
    "has 100 datasets rolled up 31 / 36 / 24 / 9, with their hard configurations",
    async () => {
      const datasets = await loadHardSplit(BENCHMARKS_DIR);
      expect(datasets).toHaveLength(100);
      const count = (c: string) => datasets.filter((d) => d.category === c).length;
      expect([count("math"), count("algorithmic"), count("cognition"), count("logic")]).toEqual([
        31, 36, 24, 9,
      ]);
      expect(datasets.find((d) => d.name === "ab")?.config).toEqual({ length: 25 });
      expect(datasets.find((d) => d.name === "acre")?.config).toEqual({});
    },
  );

  it.skipIf(skipWithout(RG_DATA_PRESENT ? null : RG_MISSING))(
    "selects datasets by name and refuses unknown ones with E_CONFIG",
    async () => {
      expect(
        (await loadHardSplit(BENCHMARKS_DIR, { datasets: ["gcd", "ab"] })).map((d) => d.name),
      ).toEqual(["ab", "gcd"]);
      expect((await loadHardSplit(BENCHMARKS_DIR, { limit: 2 })).map((d) => d.name)).toEqual([
        "ab",
        "acre",
      ]);
      const err = await loadHardSplit(BENCHMARKS_DIR, { datasets: ["ab", "nope"] }).catch(
        (e: unknown) => e,
      );
      expect(isSpadeError(err, "E_CONFIG") && err.message).toMatch(
        /unknown reasoning-gym dataset\(s\): nope/,
      );
    },
  );

  it("rejects a malformed file with E_IO naming the field", () => {
    const bad = (doc: unknown) => {
      try {
        parseHardSplit(doc, "x.json");
        return "parsed";
      } catch (e) {
        return isSpadeError(e, "E_IO") ? e.message.split(" (")[0] : String(e);
      }
    };
    expect(bad([])).toBe("x.json: expected the objects hard_configs and category_of");
    expect(bad({ hard_configs: { ab: 3 }, category_of: { ab: "math" } })).toBe(
      "x.json: hard_configs.ab is not an object",
    );
    expect(bad({ hard_configs: { ab: {} }, category_of: { ab: "games" } })).toBe(
      "x.json: category_of.ab is not one of math, algorithmic, cognition, logic",
    );
  });

  it("wraps the question in the reference's reasoning-gym prompt", () => {
    expect(rgPrompt("What is 2+2?")).toBe(
      "Given a problem, your task is to answer the question by thinking step-by-step in a clear and specific manner.\n" +
        "Problem: What is 2+2?\n" +
        "Once you have thought about the reasoning process, provide the answer in the following format:\n" +
        "<answer>answer here</answer>\n" +
        "Do not explain your reasoning inside the answer tags, provide only the final answer. When an example is provided, you should strictly follow the format of the output/answer in that example.",
    );
  });

  it("rolls columns up as wins over episodes, not as a mean of dataset rates", () => {
    const columns = rollup([
      { category: "math", wins: 8, episodes: 8 },
      { category: "math", wins: 0, episodes: 4 },
      { category: "logic", wins: 1, episodes: 8 },
    ]);
    expect(columns).toEqual({ math: 8 / 12, algorithmic: null, cognition: null, logic: 0.125 });
  });
});
