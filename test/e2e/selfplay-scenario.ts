/**
 * The scripted self-play scenario shared by the `spade run` end-to-end and resume tests: what
 * the designer double writes at each (step, slot, attempt), the run's flags, and a run seed for
 * which the flicker environment's plays are known (one even seed per step).
 */
import { afterAll, beforeAll } from "vitest";
import { buildConfig, type RunConfig } from "../../src/config/index.js";
import { playSeeds } from "../../src/loop/keys.js";
import { chatLoopPolicy, type LoopPolicy } from "../../src/loop/policy.js";
import { openAIChatBackend } from "../../src/policy/index.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { startSelfPlayServer, type ScriptedDesign } from "../fakes/selfplay-server.js";
import * as P from "../fakes/selfplay-programs.js";
import { fileTempDir } from "../cleanup.js";

// The command runner lives in cli.ts; re-exported here for the tests that import it from the scenario.
export { BIN, spade, spadeAsync, type SpadeResult } from "./cli.js";

const LD = "Logical Deduction";
const PR = "Pattern Recognition";

/** Slot i gets skill i mod 2: slots 0 and 2 Logical Deduction, slot 1 Pattern Recognition. */
export const DESIGNS: ScriptedDesign[] = [
  { step: 0, slot: 0, attempt: 0, completion: P.everythingWins(LD) }, // E_TRIVIAL
  { step: 0, slot: 0, attempt: 1, completion: P.hintOnlyWord(LD) }, // A: win rate 0, regret 1
  { step: 0, slot: 1, attempt: 0, completion: P.easyEcho(PR) }, // B: win rate 1, regret 0
  { step: 0, slot: 2, attempt: 0, completion: "I would rather not write code today." }, // no program
  { step: 0, slot: 2, attempt: 1, completion: P.wrongOracle(LD) }, // E_ORACLE: the slot stays invalid
  {
    step: 2,
    slot: 0,
    attempt: 0,
    completion: P.hintOnlyWord(LD, "tint-locker", { word: "hue", turn: "round" }),
  }, // duplicate of A
  { step: 2, slot: 0, attempt: 1, completion: P.flicker(LD) }, // C: win rate 0.5, regret 0.5
  { step: 2, slot: 1, attempt: 0, completion: P.hintOnlySequence(PR) }, // D: win rate 0, regret 1
  { step: 2, slot: 2, attempt: 0, completion: P.easyShelf(LD) }, // E: win rate 1, regret 0
];

/** The first run seed for which each of C's steps (2 and 3) has exactly one even play seed. */
export const RUN_SEED = (() => {
  const oneEven = (seeds: number[]) => seeds.filter((s) => s % 2 === 0).length === 1;
  for (let seed = 1; seed < 1000; seed++) {
    if (oneEven(playSeeds(seed, 2, "d2-0", 2)) && oneEven(playSeeds(seed, 3, "d2-0", 2)))
      return seed;
  }
  throw new Error("no run seed with the wanted parities");
})();

/** `spade run` flags of the scenario (R = D = 2, 4 steps, 3 slots, 2 unhinted + 2 hinted plays, every finished play one sample). */
export function runFlags(baseURL: string, out: string): string[] {
  return [
    "run",
    "--out",
    out,
    "--no-train",
    "--base-url",
    baseURL,
    "--model",
    "scripted-double",
    "--seed",
    String(RUN_SEED),
    "--steps",
    "4",
    "--designs-per-step",
    "3",
    "--skills",
    `${LD},${PR}`,
    "--regenerate-every",
    "2",
    "--reward-delay",
    "2",
    "--plays",
    "2",
    "--hinted-plays",
    "2",
    "--max-attempts",
    "2",
    "--concurrency",
    "4",
    "--batch-fit",
    "off",
    // The scripted environments carry their hints in hint(): the programs' own hints, not a model's.
    "--hints",
    "program",
  ];
}

/**
 * The scenario as a run configuration for tests that call the loop in-process (the settings of
 * `runFlags`, training included unless `overrides` say otherwise).
 */
export function scenarioConfig(overrides: Record<string, unknown> = {}): RunConfig {
  return buildConfig([
    {
      seed: RUN_SEED,
      steps: 4,
      designsPerStep: 3,
      skills: [LD, PR],
      regenerateEvery: 2,
      rewardDelay: 2,
      plays: 2,
      hintedPlays: 2,
      maxAttempts: 2,
      concurrency: 4,
      hints: "program",
      ...overrides,
    },
  ]);
}

/** TEST DOUBLE's client: the loop policy over the scenario's scripted server at `baseURL`. */
export function scenarioPolicy(baseURL: string): LoopPolicy {
  return chatLoopPolicy(openAIChatBackend({ baseURL, model: "scripted-double" }));
}

/**
 * For a test file that runs the loop in-process: the scenario's scripted server (TEST DOUBLE)
 * started before its tests and a temporary folder, both gone after them; `policy()` samples
 * from the server.
 */
export function useScenarioServer(prefix: string): { dir: string; policy: () => LoopPolicy } {
  let server: FakeOpenAIServer | undefined;
  const dir = fileTempDir(prefix);
  beforeAll(async () => {
    server = await startSelfPlayServer({ runSeed: RUN_SEED, designs: DESIGNS });
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    dir,
    policy: () => {
      if (!server) throw new Error("the scenario server starts in beforeAll");
      return scenarioPolicy(server.baseURL);
    },
  };
}
