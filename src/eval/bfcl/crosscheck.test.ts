import { readFileSync, writeFileSync } from "node:fs";
import { expect, it } from "vitest";
import { checkEntry, type ModelCallsByTurn } from "./checker.js";
import { BFCL_CATEGORIES, loadEntries, loadLongContextData, type BfclCategory } from "./data.js";
import { BFCL_DATA_DIR, describeWithBfclData, TEST_TODAY } from "./testing/paths.js";
import { perturbationsFor } from "./testing/perturb.js";
import { skipWithout } from "../../../test/missing.js";
import { upstreamVerdicts, VENV_MISSING } from "./testing/upstream.js";

const FIXTURE = new URL("./testing/crosscheck_fixture.json", import.meta.url);

interface Case {
  key: string;
  id: string;
  category: BfclCategory;
  model: ModelCallsByTurn;
}

/** A verdict in short form: "valid" or upstream's error type without "multi_turn:". */
const short = (valid: boolean, errorType: string | null | undefined) =>
  valid ? "valid" : (errorType ?? "").replace(/^multi_turn:/, "");

/** The fixture stores one letter per case, in buildCases() order. */
const LETTERS: Record<string, string> = {
  valid: "v",
  empty_turn_model_response: "e",
  execution_response_mismatch: "r",
  force_terminated: "f",
  instance_state_mismatch: "s",
};
const FROM_LETTER = Object.fromEntries(Object.entries(LETTERS).map(([k, v]) => [v, k]));

function readFixture(cases: Case[]): Record<string, string> {
  const letters = (JSON.parse(readFileSync(FIXTURE, "utf8")) as { verdicts: string }).verdicts;
  expect(letters.length).toBe(cases.length);
  return Object.fromEntries(
    cases.map((c, i) => [c.key, FROM_LETTER[letters[i]!] ?? `unknown letter ${letters[i]}`]),
  );
}

function writeFixture(cases: Case[], verdicts: Record<string, string>): void {
  const letters = cases.map((c) => LETTERS[verdicts[c.key]!] ?? "?").join("");
  const doc = {
    upstream: "bfcl-eval==2026.3.23",
    legend: LETTERS,
    order: "crosscheck.test.ts buildCases()",
    verdicts: letters,
  };
  writeFileSync(FIXTURE, `${JSON.stringify(doc, null, 1)}\n`);
}

function buildCases(): Case[] {
  const cases: Case[] = [];
  for (const category of BFCL_CATEGORIES) {
    loadEntries(BFCL_DATA_DIR, category).forEach((entry, index) => {
      for (const p of perturbationsFor(index))
        cases.push({ key: `${entry.id}|${p.name}`, id: entry.id, category, model: p.apply(entry) });
    });
  }
  return cases;
}

function portVerdicts(cases: Case[]): Record<string, string> {
  const entries = new Map(
    BFCL_CATEGORIES.flatMap((c) => loadEntries(BFCL_DATA_DIR, c)).map((e) => [e.id, e]),
  );
  const session = { loadLongContext: () => loadLongContextData(BFCL_DATA_DIR), today: TEST_TODAY };
  const out: Record<string, string> = {};
  for (const c of cases) {
    const verdict = checkEntry(entries.get(c.id)!, c.model, session);
    out[c.key] = short(verdict.valid, verdict.errorType);
  }
  return out;
}

describeWithBfclData("verdicts against upstream's checker", () => {
  it("equal upstream's recorded verdicts on 2,400 right and wrong model outputs", () => {
    const cases = buildCases();
    const expected = readFixture(cases);
    const mine = portVerdicts(cases);
    const differing = cases
      .filter((c) => mine[c.key] !== expected[c.key])
      .map((c) => `${c.key}: port ${mine[c.key]} upstream ${expected[c.key]}`);
    expect(differing).toEqual([]);
    const counts: Record<string, number> = {};
    for (const v of Object.values(expected)) counts[v] = (counts[v] ?? 0) + 1;
    expect(counts.valid).toBeGreaterThan(800);
    expect(Object.keys(counts).sort()).toEqual([
      "empty_turn_model_response",
      "execution_response_mismatch",
      "force_terminated",
      "instance_state_mismatch",
      "valid",
    ]);
  });

  it.skipIf(skipWithout(VENV_MISSING))("equal upstream's checker run live (.venv)", () => {
    const cases = buildCases();
    const upstream = upstreamVerdicts("crosscheck.py", JSON.stringify(cases), BFCL_DATA_DIR, {
      maxBufferBytes: 64 * 1024 * 1024,
      timeoutMs: 120_000,
    });
    const verdicts = Object.fromEntries(
      Object.entries(upstream).map(([k, [valid, type]]) => [k, short(valid, type)]),
    );
    // BFCL_CROSSCHECK_WRITE=1 records upstream's verdicts as the fixture the first test reads.
    if (process.env.BFCL_CROSSCHECK_WRITE === "1") writeFixture(cases, verdicts);
    const mine = portVerdicts(cases);
    expect(
      cases
        .filter((c) => mine[c.key] !== verdicts[c.key])
        .map((c) => `${c.key}: port ${mine[c.key]} upstream ${verdicts[c.key]}`),
    ).toEqual([]);
  });
});
