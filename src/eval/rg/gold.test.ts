import { afterAll, describe, expect, it } from "vitest";
import cases from "./gold.cases.json";
import { changeOneCharacter, rgGoldCheck } from "./gold.js";
import { loadHardSplit } from "./split.js";
import { fakeRgService } from "./testing/fake-service.js";
import { BENCHMARKS_DIR, RG_MISSING, RG_DATA_PRESENT, RG_VENV_READY } from "./testing/paths.js";
import { RgWorkerPool } from "./worker.js";
import { skipWithout } from "../../../test/missing.js";

describe("changeOneCharacter", () => {
  it.each(cases.changeOneCharacter)("%j -> %j", (answer, changed) => {
    expect(changeOneCharacter(answer)).toBe(changed);
  });
});

describe("rgGoldCheck (with a scripted worker)", () => {
  it("counts winning references, failures and rejected perturbations", async () => {
    // References A0, A1 win except A1; the changed answer of A0 ("A1") is accepted because it is A1's text.
    const service = fakeRgService({ "<answer>A0</answer>": 1, "<answer>A1</answer>": 0.5 });
    const report = await rgGoldCheck([{ name: "toy", config: {}, category: "logic" }], service, {
      episodes: 2,
    });
    expect([report.items, report.correct, report.problems, report.problemsCorrect]).toEqual([
      1, 0, 2, 1,
    ]);
    const d = report.datasets[0]!;
    expect(d.failures).toEqual([{ episode: 1, reason: 'reference scored 0.5 (extracted "A1")' }]);
    expect(d.referenceSources).toEqual(["answer"]);
    expect(d.perturbations).toEqual([
      { kind: "empty", applicable: 2, rejected: 2, accepted: [] },
      {
        kind: "other-problem",
        applicable: 2,
        rejected: 1,
        accepted: [{ episode: 1, answer: "A0" }],
      },
      { kind: "changed-character", applicable: 2, rejected: 2, accepted: [] },
    ]);
  });
});

describe.skipIf(skipWithout(RG_VENV_READY && RG_DATA_PRESENT ? null : RG_MISSING))(
  "rgGoldCheck on the real package",
  () => {
    const pool = new RgWorkerPool(2);
    afterAll(() => pool.close());

    it("the references of datasets with and without entry answers win; perturbed ones do not", {
      timeout: 300_000,
    }, async () => {
      const datasets = await loadHardSplit(BENCHMARKS_DIR, {
        datasets: [
          "basic_arithmetic",
          "graph_color",
          "propositional_logic",
          "rubiks_cube",
          "caesar_cipher",
        ],
      });
      const report = await rgGoldCheck(datasets, pool, { episodes: 2 });
      expect(
        report.datasets.map((d) => [d.dataset, d.correct, d.referenceSources.join(",")]),
      ).toEqual([
        ["basic_arithmetic", 2, "answer"],
        ["caesar_cipher", 2, "answer"],
        ["graph_color", 2, "metadata.possible_answer"],
        ["propositional_logic", 2, "metadata.example_answer"],
        ["rubiks_cube", 2, "inverse of metadata.scramble_moves"],
      ]);
      // A coloring with one vertex recoloured can still be proper: graph_color accepts one such answer.
      expect(
        report.datasets.map((d) => [d.dataset, d.perturbations.map((k) => k.accepted.length)]),
      ).toEqual([
        ["basic_arithmetic", [0, 0, 0]],
        ["caesar_cipher", [0, 0, 0]],
        ["graph_color", [0, 0, 1]],
        // Any valid conclusion scores 1: another problem's conclusion, or a changed one, can follow from these premises too.
        ["propositional_logic", [0, 1, 2]],
        ["rubiks_cube", [0, 0, 0]],
      ]);
      for (const d of report.datasets) {
        expect(d.perturbations[0]).toMatchObject({ kind: "empty", applicable: 2, rejected: 2 });
      }
    });
  },
);
