// The Tau2 columns of the paper's table from a finished `spade eval tau2` folder.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../../test/cleanup.js";
import { writeItemResult, type ItemResult, type SampleRecord } from "../run/index.js";
import { runSource, tau2ResultsSource, type SourceContext } from "./index.js";

const sample = (i: number, success: boolean): SampleRecord => ({
  sample: i,
  seed: i,
  return: success ? 1 : 0,
  success,
  turns: 3,
  failure: null,
  failureStage: null,
  failureCode: null,
  metrics: {},
  transcript: {},
});
const item = (id: string, successes: boolean[]): ItemResult => ({
  id,
  group: id.split("/")[0] as string,
  samples: successes.map((s, i) => sample(i, s)),
  accuracy: successes.filter(Boolean).length / successes.length,
});

const dir = fileTempDir("spade-paper-tau2-");
const context: SourceContext = {
  dataDir: dir,
  outDir: join(dir, "unused"),
  model: "m",
  resume: false,
  concurrency: 1,
  signal: new AbortController().signal,
};

describe("tau2ResultsSource", () => {
  it("fills pass^1 per domain; a domain without results says how to get them", async () => {
    const results = join(dir, "tau2");
    mkdirSync(join(results, "items"), { recursive: true });
    // retail: tasks at 2/4 and 4/4 -> (0.5 + 1) / 2 = 0.75; airline: 1/4 -> 0.25; no telecom.
    for (const it of [
      item("retail/0", [true, true, false, false]),
      item("retail/1", [true, true, true, true]),
      item("airline/0", [false, true, false, false]),
    ])
      await writeItemResult(results, it);
    const out = await runSource(tau2ResultsSource(results), context);
    expect(out.cells["Tau2-Retail"]).toEqual({ status: "ok", value: 0.75 });
    expect(out.cells["Tau2-Airline"]).toEqual({ status: "ok", value: 0.25 });
    expect(out.cells["Tau2-Telecom"]).toEqual({
      status: "not available",
      reason: `no telecom results in ${results}: run \`spade eval tau2 --domain all --out DIR\` with the same model, then pass --tau2-results DIR`,
    });
  });

  it("without a folder every column says how to make one", async () => {
    const out = await runSource(tau2ResultsSource(undefined), context);
    expect(Object.keys(out.cells)).toEqual(["Tau2-Retail", "Tau2-Airline", "Tau2-Telecom"]);
    expect(out.cells["Tau2-Airline"]).toEqual({
      status: "not available",
      reason:
        "run `spade eval tau2 --domain all --out DIR` with the same model, then pass --tau2-results DIR",
    });
  });
});
