// pass^k per task and per domain, as tau2's metrics compute it.
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../../test/cleanup.js";
import { writeItemResult, type ItemResult, type SampleRecord } from "../run/index.js";
import { passHatK, tau2PassAt1, tau2ScoresOf } from "./index.js";

const sample = (i: number, success: boolean, failure: string | null = null): SampleRecord => ({
  sample: i,
  seed: i,
  return: success ? 1 : 0,
  success,
  turns: 4,
  failure,
  failureStage: failure ? "agent" : null,
  failureCode: failure ? "E_TAU2_HARNESS" : null,
  metrics: {},
  transcript: {},
});
const item = (id: string, successes: boolean[], failures: number[] = []): ItemResult => ({
  id,
  group: id.split("/")[0]!,
  samples: successes.map((s, i) => sample(i, s, failures.includes(i) ? "boom" : null)),
  accuracy: successes.filter(Boolean).length / successes.length,
});

describe("passHatK", () => {
  it("is C(c, k) / C(n, k)", () => {
    expect(passHatK(4, 2, 1)).toBe(0.5);
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(4, 3, 4)).toBe(0);
  });
});

describe("tau2ScoresOf / tau2PassAt1", () => {
  const items = [
    item("retail/0", [true, true, false, false]),
    item("retail/1", [true, true, true, true]),
    item("airline/3", [false, false, false, false], [2]),
  ];
  const dir = fileTempDir("spade-tau2-scores-");

  it("averages per-task pass^1 within each domain and counts failed samples", () => {
    expect(tau2ScoresOf(items)).toEqual({
      airline: { passAt1: 0, tasks: 1, trials: 4, failedSamples: 1 },
      retail: { passAt1: 0.75, tasks: 2, trials: 4, failedSamples: 0 },
    });
    expect(tau2ScoresOf(items, 2).retail!.passAt1).toBeCloseTo((1 / 6 + 1) / 2, 12);
  });

  it("reads a results folder, long telecom task ids included", async () => {
    mkdirSync(join(dir, "items"));
    const long =
      "telecom/[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_sms_permission|data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_enabled_off[PERSONA:None]";
    const twin = long.replace("None", "Easy");
    for (const it of [...items, item(long, [true, false]), item(twin, [true, true])])
      await writeItemResult(dir, it);
    const names = readdirSync(join(dir, "items")).filter((n) => n.startsWith("telecom"));
    expect(names.length).toBe(2);
    for (const name of names) expect(Buffer.byteLength(name)).toBeLessThanOrEqual(160);
    const scores = await tau2PassAt1(dir);
    expect(Object.fromEntries(Object.entries(scores).map(([d, s]) => [d, s.passAt1]))).toEqual({
      airline: 0,
      retail: 0.75,
      telecom: 0.75,
    });
    expect(await tau2PassAt1(join(dir, "missing"))).toEqual({});
  });
});
