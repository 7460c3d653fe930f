/**
 * Table tests of the scoring parts with hand-computed values. Reference behaviour cited per case:
 * `spade/core/utils/rewards.py` `compute_env_reward_scale`, `spade/slime/spade_rollout.py`
 * `spade_generate_rollout` (scale over the trained env samples, env-first trim),
 * `spade/core/utils/delayed_env_rewards.py` `recompute_delayed_env_rewards` (LP),
 * `spade/core/utils/trajectory_build.py` `upsample_trajectories`, `build_actor_trajectory`.
 */
import { describe, expect, it } from "vitest";
import { buildConfig } from "../config/index.js";
import type { DesignRow, EnvironmentRow, EpisodeRow } from "../store/index.js";
import { EMPTY_STATS } from "../store/index.js";
import { episodeOfRef } from "./keys.js";
import { episodeOutcome } from "./outcome.js";
import { playsPerEnv } from "./play.js";
import { agentSamples, fillAgentSamples, trimCounts } from "./score-agent.js";
import {
  designerSamples,
  dueDesigns,
  updateLearningPotential,
  withEnvironments,
} from "./score-designer.js";
import { stepMetrics } from "./score-metrics.js";
import { envStats } from "./score-stats.js";
import { scoreStep } from "./score.js";

const env = (
  id: string,
  skill: string,
  createdStep = 0,
  source: "designer" | "library" = "designer",
): EnvironmentRow => ({
  id,
  name: id,
  skill,
  description: "",
  code: "",
  meta: {
    name: id,
    skill,
    description: "",
    maxTurns: 10,
    tools: [],
  } as unknown as EnvironmentRow["meta"],
  source,
  createdStep,
  slot: 0,
  docId: null,
  hint: null,
  stats: EMPTY_STATS,
});

type Kind = "win" | "loss" | "overflow" | "dropped";
const episode = (
  envId: string,
  step: number,
  idx: number,
  kind: Kind,
  hinted = false,
  seed = idx,
): EpisodeRow => ({
  step,
  envId,
  idx,
  seed,
  hinted,
  return: kind === "win" ? 1 : 0,
  success: kind === "win",
  turns: 1,
  failure: kind === "dropped" ? "agent: E_POLICY_HTTP: server down" : null,
  failureCode: kind === "dropped" ? "E_POLICY_HTTP" : null,
  rewards: [kind === "win" ? 1 : 0],
  transcript: {
    firstObservation: "",
    outcome: kind === "overflow" ? "overflow" : kind === "dropped" ? "dropped" : "terminated",
    maskedTurns: [],
    steps: [],
  },
  trace: null,
});
/** `n` plays of one kind. */
const times = (kind: Kind, n: number): Kind[] => Array.from({ length: n }, () => kind);
const plays = (envId: string, step: number, kinds: Kind[]) =>
  kinds.map((k, i) => episode(envId, step, i, k));

const design = (step: number, slot: number, skill: string, envId: string | null): DesignRow => ({
  step,
  slot,
  seq: 0,
  attempt: 0,
  repairTurn: 0,
  skill,
  docId: null,
  prompt: [],
  completion: "",
  program: null,
  outcome: envId ? "valid" : "invalid",
  report: null,
  duplicateOf: null,
  memoryRefs: {},
  trainable: true,
  tokens: null,
  envId,
});

describe("envStats (win rate over the window)", () => {
  it("3 wins and 5 context overflows of 8 give win rate 0.375, not 1.0: an overflow is a finished play with return 0", () => {
    const e = env("d0-0", "Logic");
    const s = envStats(4, e, plays("d0-0", 0, [...times("win", 3), ...times("overflow", 5)]));
    expect(s.winRate).toBe(0.375);
    expect(s.plays).toBe(1);
  });

  it("a dropped play is left out: 3 wins, 1 loss, 4 dropped give 0.75; all dropped gives null", () => {
    const e = env("d0-0", "Logic");
    expect(
      envStats(
        4,
        e,
        plays("d0-0", 0, ["win", "win", "win", "loss", "dropped", "dropped", "dropped", "dropped"]),
      ).winRate,
    ).toBe(0.75);
    expect(envStats(4, e, plays("d0-0", 0, ["dropped", "dropped"])).winRate).toBeNull();
  });

  it("counts the R steps from creation only, and measures regret on the creation step", () => {
    const e = env("d0-0", "Logic");
    // Step 0: unhinted 1 win / 2; hinted 2 wins / 2 (paired seeds 0, 1) -> regret 1 - 0.5 = 0.5. Step 1: 2 wins. Step 2: outside R = 2.
    const rows = [
      ...plays("d0-0", 0, ["win", "loss"]),
      episode("d0-0", 0, 2, "win", true, 0),
      episode("d0-0", 0, 3, "win", true, 1),
      ...plays("d0-0", 1, ["win", "win"]),
      ...plays("d0-0", 2, ["loss", "loss"]),
    ];
    expect(envStats(2, e, rows)).toMatchObject({ plays: 2, winRate: 0.75, regret: 0.5 });
  });
});

describe("agentSamples (GRPO over each environment's unhinted plays)", () => {
  it("keeps overflows (return 0) in the group and drops dropped plays: 3 wins, 5 overflows, 1 dropped", () => {
    const e = env("d0-0", "Logic");
    const rows = plays("d0-0", 0, [...times("win", 3), ...times("overflow", 5), "dropped"]);
    const samples = agentSamples(0, [e], rows, { stdNormalize: true });
    // mean 3/8 = 0.375; population std sqrt(0.375 * 0.625) = 0.48412...; wins (1 - 0.375) / std, overflows -0.375 / std.
    const std = Math.sqrt(0.375 * 0.625);
    expect(samples.map((s) => s.ref)).toEqual([
      "d0-0/0",
      "d0-0/1",
      "d0-0/2",
      "d0-0/3",
      "d0-0/4",
      "d0-0/5",
      "d0-0/6",
      "d0-0/7",
    ]);
    expect(samples[0]!.advantage).toBeCloseTo(0.625 / (std + 1e-8), 12);
    expect(samples[3]!.advantage).toBeCloseTo(-0.375 / (std + 1e-8), 12);
    expect(samples[0]!.advantage).toBeCloseTo(1.2909944, 6);
  });
});

describe("batch fill and trim (the reference's upsample_trajectories and env-first cut)", () => {
  it("fills round robin with copies named <ref>#k", () => {
    const base = ["a/0", "a/1", "b/0"].map((ref, i) => ({
      step: 0,
      role: "agent" as const,
      ref,
      reward: i,
      advantage: i - 1,
    }));
    const filled = fillAgentSamples(base, 7);
    expect(filled.map((s) => s.ref)).toEqual([
      "a/0",
      "a/1",
      "b/0",
      "a/0#1",
      "a/1#1",
      "b/0#1",
      "a/0#2",
    ]);
    expect(filled[6]).toMatchObject({ reward: 0, advantage: -1 });
    expect(fillAgentSamples(base, 2)).toHaveLength(3);
    expect(fillAgentSamples([], 192)).toEqual([]);
    // A copy trains its original episode.
    expect([
      episodeOfRef("a/0#2"),
      episodeOfRef("d0-1/3"),
      episodeOfRef("lib-vault-cracker/10#1"),
    ]).toEqual(["a/0", "d0-1/3", "lib-vault-cracker/10"]);
  });

  it.each([
    // designer, agent, batch -> kept designer, kept agent
    [24, 192, 192, 24, 168],
    [0, 192, 192, 0, 192],
    [12, 150, 192, 12, 150],
    [200, 10, 192, 192, 0],
  ])("trimCounts(%i designer, %i agent, batch %i) keeps %i + %i", (d, a, b, kd, ka) => {
    expect(trimCounts(d, a, b)).toEqual({ designer: kd, agent: ka });
  });

  it.each([
    [null, 24, 8],
    [null, 12, 16],
    [null, 7, 28],
    [null, 0, 192],
    [3, 12, 3],
  ])("plays %s with %i environments -> %i each (ceil(192 / n) unless set)", (p, n, expected) => {
    expect(playsPerEnv({ plays: p, agentBatch: 192 }, n)).toBe(expected);
  });
});

describe("designer samples", () => {
  const config = (over: Record<string, unknown> = {}) =>
    buildConfig([{ reward: "blend", invalidDesign: "drop", ...over }]);

  /** 24 slots over 3 skills, slots 0, 2, 4, ... valid (12 of 24); each valid env won 4 of 8 plays. */
  function twelveOfTwentyFour() {
    const skills = ["A", "B", "C"];
    const designs = Array.from({ length: 24 }, (_, slot) =>
      design(0, slot, skills[slot % 3] as string, slot % 2 === 0 ? `d0-${slot}` : null),
    );
    const envs = designs.filter((d) => d.envId).map((d) => env(d.envId as string, d.skill));
    const episodes = envs.flatMap((e) =>
      plays(e.id, 0, ["win", "win", "win", "win", "loss", "loss", "loss", "loss"]),
    );
    const stats = new Map(envs.map((e) => [e.id, envStats(4, e, episodes)]));
    return { designs, envs, episodes, stats };
  }

  /** The designer samples of step 4 over `twelveOfTwentyFour`, all 24 due, beside 192 agent samples. */
  function twelveOfTwentyFourScored(cfg: ReturnType<typeof config>) {
    const { designs, envs, episodes, stats } = twelveOfTwentyFour();
    const due = withEnvironments(
      dueDesigns(designs, { step: 4, rewardDelay: 4, isLast: false, trained: new Set() }),
      designs,
      envs,
    );
    const out = designerSamples({
      config: cfg,
      step: 4,
      due,
      episodes,
      stats,
      agentSampleCount: 192,
      lpState: {},
    });
    return { due, out };
  }

  it("12 of 24 valid with 192 agent samples: scale min(50, 192 / 12 * 4) = 50 under --invalid-design drop (was 32: every slot counted)", () => {
    const { due, out } = twelveOfTwentyFourScored(config());
    expect(due).toHaveLength(24);
    expect(out.scale).toBe(50);
    expect(out.samples).toHaveLength(12);
    // Every valid env has win rate 0.5 (plateau 1) and no regret measured (0): raw 0.6 each, centred 0.
    expect(out.samples.every((s) => s.reward === 0.6 && s.advantage === 0)).toBe(true);
  });

  it("under --invalid-design lowest all 24 are trained: scale 192 / 24 * 4 = 32, invalid ones at -0.3 * 32", () => {
    const { out } = twelveOfTwentyFourScored(config({ invalidDesign: "lowest" }));
    expect(out.scale).toBe(32);
    expect(out.samples).toHaveLength(24);
    // Per skill 4 valid at 0.6 and 4 invalid at 0: mean 0.3; valid +0.3 * 32 = 9.6, invalid -9.6.
    expect(out.advantages[0]).toBeCloseTo(9.6, 12);
    expect(out.advantages[1]).toBeCloseTo(-9.6, 12);
  });

  it("learning potential: a design whose plays all failed gets raw reward 0, and a skill with no finished plays keeps its tracker", () => {
    const a = env("d0-0", "A");
    const b = env("d0-1", "A");
    const c = env("d0-2", "C");
    const designs = [
      design(0, 0, "A", "d0-0"),
      design(0, 1, "A", "d0-1"),
      design(0, 2, "C", "d0-2"),
    ];
    const episodes = [
      ...plays("d0-0", 0, ["win", "win", "win", "loss"]),
      ...plays("d0-1", 0, ["dropped", "dropped"]),
      ...plays("d0-2", 0, ["dropped"]),
    ];
    const lpState = { A: { muFast: 0.5, muSlow: 0.5 }, C: { muFast: 0.2, muSlow: 0.1 } };
    const due = withEnvironments(designs, designs, [a, b, c]);
    const out = designerSamples({
      config: config({ reward: "learningPotential" }),
      step: 4,
      due,
      episodes,
      stats: new Map(),
      agentSampleCount: 4,
      lpState,
    });
    // Skill A fed the mean of its finished plays, 0.75: muFast 0.02 * 0.5 + 0.98 * 0.75 = 0.745, muSlow 0.15 * 0.5 + 0.85 * 0.75 = 0.7125.
    expect(out.lpState.A!.muFast).toBeCloseTo(0.745, 12);
    expect(out.lpState.A!.muSlow).toBeCloseTo(0.7125, 12);
    // Skill C had no finished play: not updated (it was fed 0 before).
    expect(out.lpState.C).toEqual({ muFast: 0.2, muSlow: 0.1 });
    // d0-0: |0.75 - 0.7125| = 0.0375; d0-1 (all plays dropped): 0, not |0 - 0.7125|; d0-2: 0.
    expect(out.rawRewards[0]).toBeCloseTo(0.0375, 12);
    expect(out.rawRewards.slice(1)).toEqual([0, 0]);
    expect(updateLearningPotential(4, due.slice(2), episodes, lpState)).toEqual(lpState);
  });

  it.each([
    // step, isLast -> due design steps (D = 2; designs made at steps 0, 2, 4)
    [2, false, [0]],
    [3, false, []],
    [4, false, [2]],
    [5, true, [4]],
    [4, true, [2, 4]],
  ])("at step %i (last: %s) the designs of steps %j are due", (step, isLast, expected) => {
    const designs = [design(0, 0, "A", "d0-0"), design(2, 0, "A", "d2-0"), design(4, 0, "A", null)];
    expect(
      dueDesigns(designs, { step, rewardDelay: 2, isLast, trained: new Set() }).map((d) => d.step),
    ).toEqual(expected);
    expect(
      dueDesigns(designs, { step: 2, rewardDelay: 2, isLast: false, trained: new Set(["0/0/0"]) }),
    ).toEqual([]);
  });
});

/** Step 2 with R = D = 2: designs of step 0 are due (A valid, B invalid); pool = step 2's new designs C, D (2 of 3 valid). */
function scoreStep2(config: ReturnType<typeof buildConfig>) {
  const envs = [env("d0-0", "A", 0), env("d2-0", "A", 2), env("d2-1", "A", 2)];
  const designs = [
    design(0, 0, "A", "d0-0"),
    design(0, 1, "A", null),
    design(2, 0, "A", "d2-0"),
    design(2, 1, "A", "d2-1"),
    design(2, 2, "A", null),
  ];
  const episodes = [
    ...plays("d0-0", 0, ["win", "loss"]),
    ...plays("d0-0", 1, ["win", "loss"]),
    ...plays("d2-0", 2, ["win", "overflow", "dropped"]),
    ...plays("d2-1", 2, ["loss", "loss", "loss"]),
  ];
  return scoreStep({
    config,
    step: 2,
    isLast: false,
    pool: envs.slice(1),
    playsPerEnv: 3,
    environments: envs,
    episodes,
    designs,
    trainedDesigns: new Set(),
    lpState: {},
  });
}

/** The batch settings of the scoreStep tests (agentBatch 10, R = D = 2, invalid designs dropped). */
const batchConfig = (over: Record<string, unknown> = {}) =>
  buildConfig([
    { agentBatch: 10, invalidDesign: "drop", regenerateEvery: 2, rewardDelay: 2, ...over },
  ]);

/** A step's batch: agent samples, of them filled copies, agent samples trimmed, designer samples, designer scale. */
const batchCounts = (score: ReturnType<typeof scoreStep2>) => {
  const m = score.metrics;
  return [
    m.agentSamples,
    m.agentSamplesFilled,
    m.agentSamplesTrimmed,
    m.designerSamples,
    m.designerScale,
  ];
};

describe("scoreStep", () => {
  it("fills the agent batch, scales the designer by the filled count, cuts designer-first to agentBatch, and reports every number", () => {
    const score = scoreStep2(batchConfig());
    // Agent: 5 finished plays; fill target agentBatch 10 - 2 new trained designs = 8 -> 3 copies.
    // Designer: 1 trained (B dropped): scale min(50, 8 / 1 * 2) = 16; alone in its skill -> advantage 0.
    // Trim: 1 designer + 8 agent = 9 <= 10: nothing cut.
    expect(batchCounts(score)).toEqual([8, 3, 0, 1, 16]);
    expect(score.metrics).toMatchObject({ overflowEpisodes: 1, failedEpisodes: 1, playsPerEnv: 3 });
    expect(score.samples.map((s) => s.ref)).toEqual([
      "0/0/0",
      "d2-0/0",
      "d2-0/1",
      "d2-1/0",
      "d2-1/1",
      "d2-1/2",
      "d2-0/0#1",
      "d2-0/1#1",
      "d2-1/0#1",
    ]);
    // d2-0: win and overflow (mean 0.5, std 0.5) -> +1, -1; d2-1 all losses -> 0.
    expect(score.samples.slice(1, 6).map((s) => Math.round(s.advantage * 1e6) / 1e6)).toEqual([
      1, -1, 0, 0, 0,
    ]);
    expect(score.stats.get("d2-0")).toMatchObject({ winRate: 0.5 });
  });

  it("--train-designer off: the agent batch reserves no room for designer samples, which are all kept (stored, not trained)", () => {
    const score = scoreStep2(batchConfig({ trainDesigner: "off" }));
    // Agent: 5 finished plays filled to the whole agentBatch 10 (5 copies); designer: scale min(50, 10 / 1 * 2) = 20.
    // Nothing is cut: 10 agent samples fit agentBatch, and the 1 designer sample is stored apart from the batch.
    expect(batchCounts(score)).toEqual([10, 5, 0, 1, 20]);
    expect(score.samples.filter((s) => s.role === "agent")).toHaveLength(10);
    expect(score.samples.filter((s) => s.role === "designer").map((s) => s.ref)).toEqual(["0/0/0"]);
  });
});

describe("stepMetrics and episodeOutcome", () => {
  it("counts overflows and masked turns from the stored transcripts; rows without outcome are classified from failure and last step", () => {
    const masked = {
      ...episode("e", 0, 0, "win"),
      transcript: { outcome: "terminated", maskedTurns: [1, 3], steps: [] },
    };
    const rows = [masked, episode("e", 0, 1, "overflow"), episode("e", 0, 2, "dropped")];
    const m = stepMetrics({
      step: 0,
      pool: [env("e", "A")],
      playsPerEnv: 3,
      episodes: rows,
      designs: [],
      stats: new Map(),
      agentSamples: 2,
      agentSamplesFilled: 0,
      agentSamplesTrimmed: 0,
      designerSamples: [],
      designerScale: 1,
    });
    expect(m).toMatchObject({
      episodes: 3,
      failedEpisodes: 1,
      overflowEpisodes: 1,
      maskedTurns: 2,
      agentSuccess: 0.5,
      meanReturn: 0.5,
    });
    expect(
      episodeOutcome({ failure: null, transcript: { steps: [{ terminated: true }] } }),
    ).toEqual({ outcome: "terminated", maskedTurns: [] });
    expect(
      episodeOutcome({ failure: null, transcript: { steps: [{ terminated: false }] } }),
    ).toEqual({ outcome: "truncated", maskedTurns: [] });
    expect(episodeOutcome({ failure: "step: boom", transcript: {} })).toEqual({
      outcome: "dropped",
      maskedTurns: [],
    });
  });
});
