/**
 * @module loop/score-agent
 * The agent's samples of a step: GRPO within each environment's unhinted plays, then the batch
 * filled or trimmed to `agentBatch` the way the reference does it (`trajectory_build.py`
 * `upsample_trajectories`, `spade_rollout.py` `spade_generate_rollout`: designer samples first,
 * then agent samples, cut to the global batch). Pure: rows in, rows out.
 */
import { groupAdvantages } from "../rl/index.js";
import type { EnvironmentSummary, EpisodeScore, SampleRow } from "../store/index.js";
import { episodeRef } from "./keys.js";

/**
 * One sample per finished unhinted play of `step`, environment by environment (pool order), play
 * by play: advantage (r - mean) / (std + 1e-8) within the environment's group. Dropped plays
 * (`failure` set) are left out and do not move the group's mean; a context overflow is a
 * finished play with return 0 and counts.
 */
export function agentSamples(
  step: number,
  pool: readonly EnvironmentSummary[],
  episodes: readonly EpisodeScore[],
  options: { stdNormalize: boolean },
): SampleRow[] {
  const samples: SampleRow[] = [];
  for (const env of pool) {
    const group = episodes.filter((e) => e.step === step && e.envId === env.id && !e.hinted);
    const advantages = groupAdvantages(
      group.map((e) => (e.failure === null ? e.return : null)),
      { stdNormalize: options.stdNormalize },
    );
    group.forEach((e, i) => {
      const advantage = advantages[i];
      if (advantage !== null && advantage !== undefined)
        samples.push({
          step,
          role: "agent",
          ref: episodeRef(e.envId, e.idx),
          reward: e.return,
          advantage,
        });
    });
  }
  return samples;
}

/**
 * The reference's fill: fewer agent samples than `target` are topped up with copies, round
 * robin from the first (copy k of a sample is stored as `<ref>#k`, and trains the same episode
 * with the same advantage). No samples, or enough: unchanged.
 */
export function fillAgentSamples(samples: readonly SampleRow[], target: number): SampleRow[] {
  if (samples.length === 0 || samples.length >= target) return [...samples];
  const out = [...samples];
  const copies = new Map<string, number>();
  for (let i = 0; out.length < target; i++) {
    const original = samples[i % samples.length] as SampleRow;
    const copy = (copies.get(original.ref) ?? 0) + 1;
    copies.set(original.ref, copy);
    out.push({ ...original, ref: `${original.ref}#${copy}` });
  }
  return out;
}

/** How many samples of each role the reference's trim keeps: designer samples first, then agent ones, `agentBatch` in all. */
export function trimCounts(
  designerSamples: number,
  agentSamplesCount: number,
  agentBatch: number,
): { designer: number; agent: number } {
  const designer = Math.min(designerSamples, agentBatch);
  return { designer, agent: Math.min(agentSamplesCount, agentBatch - designer) };
}
