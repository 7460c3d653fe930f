/**
 * `spade run` end to end through the built command, against the scripted self-play double: the
 * stored win rates, regrets and designer rewards equal the values computed by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer } from "../fakes/selfplay-server.js";
import { DESIGNS, RUN_SEED, runFlags, spade, type SpadeResult } from "./selfplay-scenario.js";
import { fileTempDir } from "../cleanup.js";

let server: FakeOpenAIServer;
const dir = fileTempDir("spade-run-");
const out = join(dir, "run");
let result: SpadeResult;

beforeAll(async () => {
  server = await startSelfPlayServer({ runSeed: RUN_SEED, designs: DESIGNS });
  result = await spade(runFlags(server.baseURL, out));
});
afterAll(async () => {
  await server.close();
});

describe("spade run with a scripted designer and agent", () => {
  it("completes every step and reports progress", () => {
    expect(result.stderr).toContain("step 4/4");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /step 1\/4 \| designs 2\/3 valid \| pool 2 \| regret 0\.500 \| success 0\.50 \(hinted 1\.00\)/,
    );
    expect(readFileSync(join(out, "metrics.jsonl"), "utf8").trim().split("\n")).toHaveLength(4);
    // Not a TTY: the step's work as plain lines, the first at once (then at most one every 10 s).
    expect(result.stderr).toMatch(
      /^step 1\/4 designing: attempts 0\/6, 0 valid, (-|0\.0) designs\/min$/m,
    );
    expect(result.stderr).not.toContain("\x1b[K");
  });

  it("stores the win rates, regrets and designer rewards computed by hand", async () => {
    const shown = await spade(["runs", "show", out, "--json"]);
    expect(shown.code).toBe(0);
    const summary = JSON.parse(shown.stdout);
    expect(summary.steps).toBe(4);
    const rows = summary.environments.map((e: Record<string, unknown>) => [
      e.step,
      e.slot,
      e.name,
      e.valid,
      e.winRate,
      e.regret,
      e.designerReward,
      e.designerAdvantage,
    ]);
    // Step 2 scores step 0's designs (D = 2): LD rewards 0.4 (A) and 0 (invalid slot) centre to +-0.2; PR's lone B
    // centres to 0; scale = min(50, 6 agent samples / 3 designer samples * R 2) = 4.
    // Step 3, the last, flushes step 2's: LD C 1.0 (0.4 * clip(0.5 / 0.15) + 0.6 * plateau(0.5)) and E 0 -> +-0.5 * 4.
    expect(rows).toEqual([
      [0, 0, "colour-vault", true, 0, 1, 0.4, expect.closeTo(0.8, 12)],
      [0, 1, "number-echo", true, 1, 0, 0, 0],
      [0, 2, null, false, null, null, 0, expect.closeTo(-0.8, 12)],
      [2, 0, "flicker-panel", true, 0.5, 0.5, 1, 2],
      [2, 1, "secret-sequence", true, 0, 1, 0.4, 0],
      [2, 2, "labelled-shelf", true, 1, 0, 0, -2],
    ]);
    expect(
      summary.metrics.map((m: Record<string, unknown>) => [
        m.step,
        m.designsValid,
        m.designCompletions,
        m.poolSize,
        m.episodes,
        m.agentSuccess,
        m.designerSamples,
      ]),
    ).toEqual([
      [0, 2, 5, 2, 8, 0.5, 0],
      [1, 0, 0, 2, 4, 0.5, 0],
      [2, 3, 4, 3, 12, 0.5, 3],
      [3, 0, 0, 3, 6, 0.5, 3],
    ]);
  });

  it("records every design attempt with its outcome, and which one is trained", () => {
    const store = RunStore.open(out, "read");
    const designs = store.designs();
    const environments = store.environments();
    store.close();
    expect(designs.map((d) => [d.step, d.slot, d.seq, d.outcome, d.trainable, d.envId])).toEqual([
      [0, 0, 0, "invalid", false, null],
      [0, 0, 1, "valid", true, "d0-0"],
      [0, 1, 0, "valid", true, "d0-1"],
      [0, 2, 0, "no-program", false, null],
      [0, 2, 1, "invalid", true, null],
      [2, 0, 0, "duplicate", false, null],
      [2, 0, 1, "valid", true, "d2-0"],
      [2, 1, 0, "valid", true, "d2-1"],
      [2, 2, 0, "valid", true, "d2-2"],
    ]);
    expect(designs[0]?.report?.failures).toEqual(["E_TRIVIAL"]);
    expect(designs[4]?.report?.failures).toEqual(["E_ORACLE"]);
    expect(designs[5]?.duplicateOf).toBe("d0-0");
    expect(
      designs.every((d) => d.docId !== null && JSON.stringify(d.prompt).includes(d.skill)),
    ).toBe(true);
    // Memory references name environments as the store does (library ones `lib-<name>`), drawn per attempt.
    const refIds = designs.flatMap((d) => (d.memoryRefs as { references: string[] }).references);
    expect(refIds.length).toBeGreaterThan(0);
    expect(refIds.every((id) => /^lib-[a-z0-9-]+$/.test(id) || /^d\d+-\d+$/.test(id))).toBe(true);
    const envIds = new Set(environments.map((e) => e.id));
    expect(refIds.filter((id) => id.startsWith("d")).every((id) => envIds.has(id))).toBe(true);
  });

  it("plays rotating library environments with --designer off (the fixed-environment baseline)", async () => {
    const base = join(dir, "baseline");
    const run = await spade([
      "run",
      "--out",
      base,
      "--no-train",
      "--base-url",
      server.baseURL,
      "--model",
      "m",
      "--designer",
      "off",
      "--steps",
      "3",
      "--designs-per-step",
      "2",
      "--regenerate-every",
      "2",
      "--agent-batch",
      "4",
      "--concurrency",
      "4",
    ]);
    expect(run.code).toBe(0);
    const store = RunStore.open(base, "read");
    const episodes = store.episodes();
    const samples = store.samples();
    const library = store.environments().filter((e) => e.source === "library");
    store.close();
    expect(library.length).toBeGreaterThanOrEqual(24);
    // Steps 0-1 play library environments 0 and 1; step 2 (the next window) plays 2 and 3.
    const played = (step: number) => [
      ...new Set(episodes.filter((e) => e.step === step).map((e) => e.envId)),
    ];
    expect(played(0)).toEqual([library[0]?.id, library[1]?.id].sort());
    expect(played(1)).toEqual(played(0));
    expect(played(2)).toEqual([library[2]?.id, library[3]?.id].sort());
    expect(episodes.every((e) => !e.hinted)).toBe(true);
    expect(samples.every((s) => s.role === "agent")).toBe(true);
    // agentBatch 4 over 2 environments: ceil(4 / 2) = 2 plays each, 4 samples a step.
    expect(samples).toHaveLength(12);
  });

  it("refuses bad flags with exit 2 and a coded message", async () => {
    const bad = await spade([
      "run",
      "--no-train",
      "--designs-per-step",
      "0",
      "--base-url",
      server.baseURL,
      "--model",
      "m",
      "--out",
      join(dir, "bad"),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("E_CONFIG: setting designsPerStep (--designs-per-step)");
    const noEngine = await spade([
      "run",
      "--base-url",
      server.baseURL,
      "--model",
      "m",
      "--out",
      join(dir, "bad2"),
    ]);
    expect(noEngine.code).toBe(2);
    expect(noEngine.stderr).toContain("pass --no-train");
    const again = await spade(runFlags(server.baseURL, out));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already holds a run");
    const misspelt = await spade([
      ...runFlags(server.baseURL, join(dir, "bad3")),
      "--concurency",
      "8",
    ]);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toBe(
      "spade: E_CONFIG: unknown option --concurency for spade run: did you mean --concurrency? " +
        "(spade run --help lists its options)\n",
    );
    expect(existsSync(join(dir, "bad3"))).toBe(false);
  });
});

describe("extending a finished run with --resume --steps", () => {
  it("continues to the new last step without training any design twice", async () => {
    const extended = await spade(["run", "--resume", out, "--steps", "6"]);
    expect(extended.code).toBe(0);
    expect(extended.stderr).toContain("step 6/6");
    const store = RunStore.open(out, "read");
    const designerRefs = store
      .samples()
      .filter((s) => s.role === "designer")
      .map((s) => s.ref);
    const steps = store.doneSteps();
    store.close();
    expect(steps).toBe(6);
    expect(new Set(designerRefs).size).toBe(designerRefs.length);
    // Step 4's new designs are flushed at step 5; those of steps 0 and 2 were trained at steps 2 and 3.
    expect(designerRefs.filter((r) => r.startsWith("0/") || r.startsWith("2/"))).toHaveLength(6);
  });
});
