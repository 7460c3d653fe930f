// ACEBench normal and special scoring: the gold outputs, perturbed outputs with exact verdicts,
// the overall summary, and (with SPADE_ACEBENCH_SRC: an ACEBench checkout or git directory) a
// verdict-by-verdict cross-check against upstream's own eval_main.py run by .venv's Python.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../../test/cleanup.js";
import {
  NORMAL_CATEGORIES,
  SPECIAL_CATEGORIES,
  goldOutput,
  loadNsEntries,
  overallScore,
  scoreCategory,
  unweightedMean,
  type NsCategory,
  type NsEntry,
} from "./categories.js";
import { decodeNormalOutput, standardizeString } from "./normal.js";
import { acebenchDir } from "./testing/bench-dir.js";
import { skipOptional } from "../../../test/missing.js";
import { upstreamMissing, upstreamTree, VENV_PYTHON } from "./testing/upstream.js";

const ALL: NsCategory[] = [...NORMAL_CATEGORIES, ...SPECIAL_CATEGORIES];
const dir = acebenchDir();
const entries = new Map(ALL.map((c) => [c, loadNsEntries(dir, c)]));

/** Perturbations of a gold output, each a different kind of mistake. */
const PERTURB: Record<string, (gold: string, e: NsEntry) => string> = {
  gold: (g) => g,
  renamed: (g) => g.replace(/^\[(\w)/, "[X$1"),
  noBracket: (g) => g.slice(1),
  lastArgDropped: (g) => g.replace(/, \w+=([^=]+)\)\]$/, ")]"),
  stringChanged: (g) => g.replace(/='[^']*'/, "='zzqx'"),
  extraArg: (g) => g.replace(/\)\]$/, ", zz_extra=1)]").replace(/\(, /, "("),
  doubled: (g) => (g.startsWith("[") && g.endsWith("]") ? `${g.slice(0, -1)}, ${g.slice(1)}` : g),
  phraseCut: (g) =>
    g
      .replace("Missing necessary", "Lacking")
      .replace("There is incorrect", "Wrong")
      .replace("limitations", "limits"),
  lastWordCut: (g) => g.replace(/\w+\)/, ")"),
  jsonWords: (g) =>
    g.replaceAll("True", "true").replaceAll("False", "false").replaceAll("None", "null"),
  bareNames: (g) => g.replace(/='([A-Za-z_]\w*)'/g, "=$1"),
  tupleNotList: (g) => (g.startsWith("[") && g.endsWith("]") ? `${g.slice(1, -1)},` : g),
};

/** The first entry of `category`, its ground truth as a reply, and the verdict on a reply to it. */
function firstEntry(category: NsCategory) {
  const e = entries.get(category)![0]!;
  const verdict = (out: string) => scoreCategory([e], [out]).items[0]!;
  return { e, gold: goldOutput(e), verdict };
}

function outputsFor(kind: string): Map<NsCategory, string[]> {
  return new Map(ALL.map((c) => [c, entries.get(c)!.map((e) => PERTURB[kind]!(goldOutput(e), e))]));
}

describe("ACEBench normal and special: the data", () => {
  it("has upstream's entry counts per category", () => {
    expect(ALL.map((c) => entries.get(c)!.length)).toEqual([
      100, 100, 123, 100, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50,
    ]);
  });
});

describe("ACEBench normal checker", () => {
  it("decodes as upstream: whitespace removed, keyword arguments, a list required", () => {
    expect(decodeNormalOutput("[f(a = 'New York', b=[1, 2.5])]")).toEqual([
      {
        name: "f",
        params: new Map<string, unknown>([
          ["a", "NewYork"],
          ["b", [1n, 2.5]],
        ]),
      },
    ]);
    expect(decodeNormalOutput("f(a=1)")).toBeNull();
    expect(decodeNormalOutput("f(a=1), g(b=true)")).toEqual([
      { name: "f", params: new Map([["a", 1n]]) },
      { name: "g", params: new Map([["b", "true"]]) },
    ]);
    expect(decodeNormalOutput("[f(a=Paris, c=g(k=1), d=None)]")).toEqual([
      {
        name: "f",
        params: new Map<string, unknown>([
          ["a", "Paris"],
          ["c", new Map([["g", new Map([["k", 1n]])]])],
          ["d", null],
        ]),
      },
    ]);
    expect(decodeNormalOutput("[f(a=x.y)]")).toBeNull();
    expect(decodeNormalOutput("[f(a=1)")).toBeNull();
    expect(standardizeString("Last-Quarter, 'x'_y.z")).toBe('lastquarter"x"yz');
  });

  it("fails a gold answer where upstream's whitespace removal breaks a nested string, as upstream does", () => {
    const { gold, verdict } = firstEntry("normal_atom_object_deep");
    expect(gold).toBe(
      "[partner_assessment_evaluate_operational_efficiency(partner_id='TP-12345', evaluation_criteria={'metrics': ['time savings', 'cost reduction'], 'time_frame': 'Last Quarter'})]",
    );
    // str(['timesavings', ...]) never contains str(['time savings', ...]): upstream's eval_main
    // says the same for this entry (the cross-check below).
    expect(verdict(gold)).toMatchObject({
      valid: false,
      errorType: "value_error",
    });
  });

  it("scores a gold answer valid and each kind of mistake with upstream's error type", () => {
    const { gold, verdict } = firstEntry("normal_atom_object_short");
    expect(gold).toBe(
      "[poetry_theme_emotion_analyzer(text='The calm lake mirrors the sky, whispers of the winds float by.', context={'culture': 'Western'})]",
    );
    expect(verdict(gold)).toMatchObject({ valid: true, errorType: "" });
    expect(
      verdict("[poetry_theme_emotion_analyzer(context={'culture': 'Western'})]").errorType,
    ).toBe("lack_args");
    expect(verdict(gold.replace("calm lake", "still pond"))).toMatchObject({
      valid: false,
      errorType: "value_error:string",
    });
    expect(verdict(gold.replace("'Western'", "'Eastern'"))).toMatchObject({
      valid: false,
      errorType: "value_error",
    });
    expect(verdict(gold.replace(")]", ", mood='sad')]")).errorType).toBe("addition_args");
    expect(verdict(gold.replace("[poetry_", "[xpoetry_")).errorType).toBe("function_mismatch");
    expect(verdict("[]").errorType).toBe("wrong functions number");
    expect(verdict("no calls here").errorType).toBe("wrong_output_format");
  });

  it("gives the ground truth upstream's own scores (measured with upstream's eval_main.py)", () => {
    const scores = ALL.map(
      (c) => scoreCategory(entries.get(c)!, entries.get(c)!.map(goldOutput)).accuracy,
    );
    expect(scores).toEqual([0.92, 0.86, 0.76, 0.74, 0.96, 0.98, 1, 1, 1, 1, 0.66, 1, 1, 1, 1]);
  });
});

describe("ACEBench special checker", () => {
  it("needs upstream's phrase and every named function and value", () => {
    const { gold, verdict } = firstEntry("special_incomplete");
    expect(gold).toBe(
      '["Missing necessary parameters (propertyDetails , rentalManagement , maintenanceScheduling) for the api (RealEstateManager_manageProperty)"]',
    );
    expect(verdict(gold).valid).toBe(true);
    expect(verdict(gold.replace("Missing necessary", "Lacking")).errorType).toBe("error_detection");
    expect(verdict(gold.replace("RealEstateManager_manageProperty", "it")).errorType).toBe(
      "error_correction",
    );
    // Upstream matches "propertyDetails " with its trailing space, as the data writes it.
    expect(verdict(gold.replace("propertyDetails ,", "propertyDetails,")).errorType).toBe(
      "error_correction",
    );
    const [irr] = entries.get("special_irrelevant")!;
    expect(scoreCategory([irr!], ["[f(a=1)]"]).items[0]).toMatchObject({
      valid: false,
      errorType: "error_detection",
    });
  });
});

describe("ACEBench category scores and the overall summary", () => {
  it("groups multi-turn turns by dialogue: one wrong turn fails its dialogue", () => {
    const es = entries.get("normal_multi_turn_user_adjust")!;
    const outs = es.map(goldOutput);
    const gold = scoreCategory(es, outs);
    outs[0] = "[]";
    const one = scoreCategory(es, outs);
    const dialogues = new Set(es.map((e) => e.id.split("_").at(-2))).size;
    expect(one.correct).toBe(gold.correct - 1);
    expect(one.accuracy).toBe(
      Math.round(((gold.accuracy * dialogues - 1) / dialogues) * 1000) / 1000,
    );
  });

  it("aggregates as generate_result_csv: unweighted means, then 0.578 N + 0.2676 S + 0.1545 A", () => {
    expect(unweightedMean([1, 0.5, 0.25])).toBe(0.583);
    expect(unweightedMean([])).toBe(0);
    expect(overallScore(1, 1, 1)).toBe(1);
    expect(overallScore(0.8, 0.5, 0.3)).toBe(0.643);
  });
});

const upstream = upstreamTree([
  "eval_main.py",
  "category.py",
  "model_eval",
  "model_inference/utils.py",
  "model_inference/prompt_en.py",
  "model_inference/prompt_zh.py",
]);
const python = VENV_PYTHON;

describe.skipIf(skipOptional(upstreamMissing(upstream)))(
  "cross-check with upstream's eval_main.py (SPADE_ACEBENCH_SRC)",
  () => {
    const tempDir = tempDirsAfterEach("spade-acebench-");
    for (const kind of Object.keys(PERTURB)) {
      it(`agrees on every entry's verdict and every category's accuracy: ${kind}`, () => {
        const outputs = outputsFor(kind);
        const file = join(tempDir(), "outputs.json");
        writeFileSync(file, JSON.stringify(Object.fromEntries(outputs)));
        const report = JSON.parse(
          execFileSync(
            python,
            [
              resolve("scripts/acebench-upstream-check.py"),
              upstream!,
              join(dir, "data_all", "data_en"),
              file,
            ],
            { encoding: "utf8", maxBuffer: 64 << 20 },
          ),
        ) as Record<string, { accuracy: number | null; wrong: string[]; exception: string | null }>;
        for (const c of ALL) {
          const ours = scoreCategory(entries.get(c)!, outputs.get(c)!);
          const theirs = report[c]!;
          const ourExceptions = ours.items.filter((r) => r.errorType === "checker_exception");
          if (theirs.exception !== null) {
            expect({ c, ourExceptions: ourExceptions.length > 0 }).toEqual({
              c,
              ourExceptions: true,
            });
            continue;
          }
          expect({ c, exceptions: ourExceptions.map((r) => r.id) }).toEqual({ c, exceptions: [] });
          expect({ c, wrong: ours.items.filter((r) => !r.valid).map((r) => r.id) }).toEqual({
            c,
            wrong: [...new Set(theirs.wrong)],
          });
          expect({ c, accuracy: ours.accuracy }).toEqual({ c, accuracy: theirs.accuracy });
        }
      });
    }
  },
);
