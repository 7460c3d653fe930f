/**
 * `spade run` end to end with the reference's failure semantics and batch shape (all defaults):
 * some agent episodes overflow the context, some write a malformed tool call, some hit a server
 * error. The stored win rates, regrets, agent and designer advantages, the designer scale and the
 * batch fill and trim equal values worked out here from the scenario's rules.
 *
 * Scenario: one regeneration (R = 2, D = 1, 2 steps), slot 0 writes the failure lab, slot 1 an
 * echo game the agent always wins. agentBatch 12 -> ceil(12 / 2) = 6 unhinted plays per
 * environment per step, 6 hinted on step 0. The lab's round on seed s is s % 5:
 *   0 shown    -> the agent reads the answer: win (hinted: win)
 *   1 FLOOD    -> the double answers wrongly with a 40,000-token completion; the next turn
 *                 overflows the 32,768-token budget: overflow, return 0, counted (hinted: same)
 *   2 MANGLE   -> first a malformed tool call (masked turn, error observation), then the shown
 *                 answer: win with one masked turn (hinted: same)
 *   3 hidden   -> the answer is only in the hint: loss over 3 turns (hinted: win)
 *   4 BREAK    -> the double answers HTTP 400: dropped, never scored (hinted: same)
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { playSeeds } from "../../src/loop/keys.js";
import { MALFORMED_TOOL_CALL_OBSERVATION } from "../../src/rollout/index.js";
import { RunStore } from "../../src/store/index.js";
import type { FakeOpenAIServer, FakeReply } from "../fakes/openai-server.js";
import * as P from "../fakes/selfplay-programs.js";
import { startSelfPlayServer } from "../fakes/selfplay-server.js";
import { spade, type SpadeResult } from "./cli.js";
import { fileTempDir } from "../cleanup.js";

const LD = "Logical Deduction";
const LAB = "d0-0";
const ECHO = "d0-1";
const PLAYS = 6;

type Kind = "shown" | "flood" | "mangle" | "hidden" | "break";
const KINDS: Kind[] = ["shown", "flood", "mangle", "hidden", "break"];
const kindOf = (seed: number) => KINDS[seed % 5] as Kind;

/** The first run seed whose lab plays meet every round on step 0 and a flood, a mangle and a break on step 1. */
const RUN_SEED = (() => {
  for (let seed = 1; seed < 5000; seed++) {
    const k0 = new Set(playSeeds(seed, 0, LAB, PLAYS).map(kindOf));
    const k1 = new Set(playSeeds(seed, 1, LAB, PLAYS).map(kindOf));
    if (
      KINDS.every((k) => k0.has(k)) &&
      ["flood", "mangle", "break"].every((k) => k1.has(k as Kind))
    )
      return seed;
  }
  throw new Error("no run seed with the wanted rounds");
})();

/** TEST DOUBLE: the agent's answers to the lab's rounds (null: the default double, which reads "The answer is X"). */
function agentReply(messages: ReadonlyArray<{ role: string; content: unknown }>): FakeReply | null {
  const users = messages
    .filter((m) => m.role === "user" && typeof m.content === "string")
    .map((m) => m.content as string);
  const first = users[0] ?? "";
  if (first.includes("BREAK"))
    return { kind: "status", status: 400, message: "the double refuses this round" };
  if (first.includes("FLOOD"))
    return {
      kind: "text",
      content: "Let me think at length. \\boxed{nothing}",
      completionTokens: 40_000,
    };
  if (first.includes("MANGLE") && !users.includes(MALFORMED_TOOL_CALL_OBSERVATION))
    return { kind: "tool_calls", calls: [{ name: "guess", arguments: '{"word": ' }] };
  return null;
}

// Hand rules: unhinted and hinted return per round (null: dropped).
const unhintedReturn: Record<Kind, number | null> = {
  shown: 1,
  flood: 0,
  mangle: 1,
  hidden: 0,
  break: null,
};
const hintedReturn: Record<Kind, number | null> = {
  shown: 1,
  flood: 0,
  mangle: 1,
  hidden: 1,
  break: null,
};
const outcomeOf: Record<Kind, string> = {
  shown: "terminated",
  flood: "overflow",
  mangle: "terminated",
  hidden: "terminated",
  break: "dropped",
};

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const avg = (xs: number[]) => sum(xs) / xs.length;
const plateau = (w: number) =>
  w < 0.4 ? Math.max(0, 1 - (0.4 - w) / 0.25) : w > 0.6 ? Math.max(0, 1 - (w - 0.6) / 0.25) : 1;
/** GRPO over finished returns, in order: (r - mean) / (population std + 1e-8). */
function grpo(returns: number[]): number[] {
  const m = avg(returns);
  const std = Math.sqrt(avg(returns.map((r) => (r - m) ** 2)));
  return returns.map((r) => (r - m) / (std + 1e-8));
}

let server: FakeOpenAIServer;
const dir = fileTempDir("spade-run-failures-");
const out = join(dir, "run");
let result: SpadeResult;

beforeAll(async () => {
  server = await startSelfPlayServer({
    runSeed: RUN_SEED,
    designs: [
      { step: 0, slot: 0, attempt: 0, completion: P.failureLab(LD) },
      { step: 0, slot: 1, attempt: 0, completion: P.easyEcho(LD) },
    ],
    agentReply,
  });
  result = await spade([
    "run",
    "--out",
    out,
    "--no-train",
    "--base-url",
    server.baseURL,
    "--model",
    "scripted-double",
    "--seed",
    String(RUN_SEED),
    "--steps",
    "2",
    "--designs-per-step",
    "2",
    "--skills",
    LD,
    "--regenerate-every",
    "2",
    "--reward-delay",
    "1",
    "--agent-batch",
    "12",
    "--hinted-plays",
    "6",
    "--max-attempts",
    "1",
    "--concurrency",
    "4",
    // The scripted environments carry their hints in hint(): the programs' own hints, not a model's.
    "--hints",
    "program",
  ]);
}, 120_000);
afterAll(async () => {
  await server.close();
});

describe("spade run with overflowing, malformed and failing episodes (reference defaults)", () => {
  it("finishes both steps, reporting dropped episodes, overflows and masked turns", async () => {
    expect(result.code).toBe(0);
    // Step 1 (seed 20): break break flood hidden mangle shown on the lab.
    expect(result.stderr).toMatch(
      /step 2\/2 \| pool 2 \| .* \| 2 failed episodes \| context overflows 1 \| masked turns 1 \|/,
    );
    const text = await spade(["runs", "show", out]);
    expect(text.stdout).toMatch(/\n1 +12 +2 +12\n/);
  });

  it("stores each episode's outcome and masked turns as the rules say", () => {
    const store = RunStore.open(out, "read");
    const episodes = store.episodes().filter((e) => e.envId === LAB);
    store.close();
    for (const e of episodes) {
      const kind = kindOf(e.seed);
      const t = e.transcript as { outcome: string; maskedTurns: number[] };
      expect([e.step, e.hinted, kind, t.outcome, t.maskedTurns, e.return, e.failureCode]).toEqual([
        e.step,
        e.hinted,
        kind,
        outcomeOf[kind],
        kind === "mangle" ? [0] : [],
        (e.hinted ? hintedReturn : unhintedReturn)[kind] ?? 0,
        kind === "break" ? "E_POLICY_HTTP" : null,
      ]);
    }
    expect(episodes).toHaveLength(PLAYS * 2 + PLAYS);
  });

  it("stores the win rate, regret, agent advantages, designer scale and designer advantages worked out by hand", async () => {
    const seeds0 = playSeeds(RUN_SEED, 0, LAB, PLAYS);
    const seeds1 = playSeeds(RUN_SEED, 1, LAB, PLAYS);
    // Win rate over the window (steps 0 and 1): wins / finished unhinted plays; overflows count as finished losses.
    const finished = [...seeds0, ...seeds1]
      .map((s) => unhintedReturn[kindOf(s)])
      .filter((r): r is number => r !== null);
    const winRate = sum(finished) / finished.length;
    // Regret (paired): hinted play i replays seed i; seeds with a dropped side are left out.
    const pairs = seeds0
      .map((s) => [hintedReturn[kindOf(s)], unhintedReturn[kindOf(s)]])
      .filter(([h, u]) => h !== null && u !== null) as number[][];
    const regret = avg(pairs.map(([h, u]) => (h as number) - (u as number)));
    // Designer raw rewards (blend): the lab 0.4 clip(regret / 0.15) + 0.6 plateau(winRate); the echo game 0 (win rate 1, regret 0).
    const labRaw = 0.4 * Math.min(1, Math.max(0, regret / 0.15)) + 0.6 * plateau(winRate);
    // Step 1: 6 echo plays + the lab's finished ones, filled with copies to agentBatch 12; scale min(50, 12 / 2 * R 2) = 12.
    const labFinished1 = seeds1
      .map((s) => unhintedReturn[kindOf(s)])
      .filter((r): r is number => r !== null);
    const agentBeforeFill = labFinished1.length + PLAYS;
    const scale = 12;
    const designerAdvantage = ((labRaw - 0) / 2) * scale;

    const shown = JSON.parse((await spade(["runs", "show", out, "--json"])).stdout);
    // With the seed found (20) the rounds are, step 0: break mangle break hidden shown flood; step 1: break break flood
    // hidden mangle shown. So: win rate 4 wins / 8 finished = 0.5 (2 overflows counted, 4 dropped not); regret over the
    // 4 kept pairs (mangle 0, hidden 1, shown 0, flood 0) = 0.25; lab raw 0.4 * 1 + 0.6 * 1 = 1; step 1 has 4 + 6 = 10
    // finished plays, filled to 12, scale 12, designer advantages +-(1 - 0) / 2 * 12 = +-6.
    expect([RUN_SEED, winRate, regret, labRaw, agentBeforeFill, designerAdvantage]).toEqual([
      20, 0.5, 0.25, 1, 10, 6,
    ]);
    const lab = shown.environments.find((e: { id: string }) => e.id === LAB);
    const echo = shown.environments.find((e: { id: string }) => e.id === ECHO);
    expect(lab.winRate).toBeCloseTo(winRate, 12);
    expect(lab.regret).toBeCloseTo(regret, 12);
    expect(lab.designerReward).toBeCloseTo(labRaw, 12);
    expect(lab.designerAdvantage).toBeCloseTo(designerAdvantage, 12);
    expect([echo.winRate, echo.regret, echo.designerReward]).toEqual([1, 0, 0]);
    expect(echo.designerAdvantage).toBeCloseTo(-designerAdvantage, 12);
    // Per step: agentSamples (after the fill), designerSamples, the scale used, the fill and the trim.
    expect(
      shown.metrics.map((m: Record<string, unknown>) => [
        m.step,
        m.playsPerEnv,
        m.agentSamples,
        m.designerSamples,
        m.designerScale,
        m.agentSamplesFilled,
        m.agentSamplesTrimmed,
      ]),
    ).toEqual([
      // Step 0: 12 minus the dropped plays, filled to 12 - 2 new designs = 10 when short; no designer sample due (scale 1).
      [
        0,
        PLAYS,
        Math.max(10, 12 - seeds0.filter((s) => kindOf(s) === "break").length),
        0,
        1,
        Math.max(0, 10 - (12 - seeds0.filter((s) => kindOf(s) === "break").length)),
        0,
      ],
      // Step 1: filled to 12; 2 designer samples + 12 agent samples cut to 12, designer first: 2 agent samples cut.
      [1, PLAYS, 12, 2, scale, 12 - agentBeforeFill, 2],
    ]);
    expect(shown.metrics[1].overflowEpisodes).toBe(
      seeds1.filter((s) => kindOf(s) === "flood").length,
    );
    expect(shown.metrics[1].maskedTurns).toBe(seeds1.filter((s) => kindOf(s) === "mangle").length);
    expect(shown.metrics[1].failedEpisodes).toBe(
      seeds1.filter((s) => kindOf(s) === "break").length,
    );

    // The stored agent samples of step 1: GRPO within each environment over finished plays, then copies, designer first, cut to 12.
    const store = RunStore.open(out, "read");
    const samples = store.samples({ step: 1 });
    store.close();
    const labIdx = seeds1
      .map((s, idx) => ({ idx, r: unhintedReturn[kindOf(s)] }))
      .filter((x) => x.r !== null) as Array<{ idx: number; r: number }>;
    const labAdv = grpo(labIdx.map((x) => x.r));
    const expectedAgent = [
      ...labIdx.map((x, i) => [`${LAB}/${x.idx}`, labAdv[i]]),
      ...Array.from({ length: PLAYS }, (_, i) => [`${ECHO}/${i}`, 0]),
    ] as Array<[string, number]>;
    const copies = expectedAgent
      .slice(0, 12 - expectedAgent.length)
      .map(([ref, a]) => [`${ref}#1`, a] as [string, number]);
    const expectedBatch = [...expectedAgent, ...copies].slice(0, 10);
    // SQLite returns samples in key order (role, ref); compare as sets of [ref, advantage].
    const agentRows = samples
      .filter((s) => s.role === "agent")
      .map((s) => [s.ref, s.advantage] as [string, number])
      .sort();
    expect(agentRows.map(([ref]) => ref)).toEqual(expectedBatch.map(([ref]) => ref).sort());
    const byRef = new Map(agentRows);
    for (const [ref, advantage] of expectedBatch) expect(byRef.get(ref)).toBeCloseTo(advantage, 6);
    expect(samples.filter((s) => s.role === "designer").map((s) => s.ref)).toEqual([
      "0/0/0",
      "0/1/0",
    ]);
  });
});
