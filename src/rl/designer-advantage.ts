/**
 * @module rl/designer-advantage
 * From raw designer rewards to what is trained: invalid designs handled, rewards centred within
 * each skill (no std division) and scaled by min(50, nAgent / nDesigner * R).
 */
import { SpadeError } from "../errors.js";
import { mean, requireFinite, requirePositiveOption } from "./check.js";
import { DESIGNER_REWARD_FLOOR } from "./designer-reward.js";

/** One designer sample of a training step. */
export interface DesignerSample {
  /** The skill the design was asked for; centring happens within each skill. */
  skill: string;
  /** Raw reward (`designerRawReward`), or null for an invalid design (no valid program). */
  rawReward: number | null;
  /** True for a valid design whose reward is masked (`isMaskedDesignerReward`): not trained. */
  masked?: boolean;
}

/** What happens to an invalid design. */
export type InvalidDesignPolicy = "lowest" | "drop";

/** Options of `designerAdvantages`. */
export interface DesignerAdvantageOptions {
  /** Multiplier after centring, normally `designerScale(...)`. */
  scale: number;
  /**
   * `lowest` (default): an invalid design is trained with `invalidReward`, centred with its skill,
   * so writing a broken program is never better than the worst valid one. `drop`: it is not
   * trained at all (the reference).
   */
  invalidDesign?: InvalidDesignPolicy;
  /** Raw reward of an invalid design under `lowest`. Default 0, the floor of every variant. */
  invalidReward?: number;
}

/**
 * Each reward minus the mean reward of its skill (the reference's `_apply_centered_rewards`,
 * without scaling). A skill with one sample gets 0.
 */
export function centreBySkill(samples: readonly { skill: string; reward: number }[]): number[] {
  const bySkill = new Map<string, number[]>();
  for (const s of samples) {
    requireFinite(s.reward, `reward of a ${s.skill} sample`);
    const list = bySkill.get(s.skill) ?? [];
    list.push(s.reward);
    bySkill.set(s.skill, list);
  }
  const meanBySkill = new Map([...bySkill].map(([skill, rewards]) => [skill, mean(rewards)]));
  return samples.map((s) => s.reward - (meanBySkill.get(s.skill) as number));
}

/**
 * The reference's designer scale, min(maxScale, nAgent / nDesigner * regenInterval): designer
 * samples are R times rarer than agent samples, so each one weighs more. 1 when either count is 0.
 */
export function designerScale(
  nAgent: number,
  nDesigner: number,
  regenInterval: number,
  maxScale = 50,
): number {
  for (const [name, value] of [
    ["nAgent", nAgent],
    ["nDesigner", nDesigner],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new SpadeError("E_RL_INPUT", `${name} must be an integer >= 0 (got ${value})`);
    }
  }
  if (!Number.isInteger(regenInterval) || regenInterval < 1) {
    throw new SpadeError(
      "E_CONFIG",
      `the regeneration interval must be an integer >= 1 (got ${regenInterval})`,
    );
  }
  requirePositiveOption(maxScale, "maximum designer scale");
  if (nAgent === 0 || nDesigner === 0) return 1;
  return Math.min(maxScale, (nAgent / nDesigner) * regenInterval);
}

/**
 * Advantages of a step's designer samples, in input order: raw rewards (invalid designs per
 * `invalidDesign`), centred per skill over the samples that are trained, times `scale`. A
 * dropped sample's entry is null (not trained).
 */
export function designerAdvantages(
  samples: readonly DesignerSample[],
  options: DesignerAdvantageOptions,
): Array<number | null> {
  const scale = requireFinite(options.scale, "designer scale");
  const policy = options.invalidDesign ?? "lowest";
  if (policy !== "lowest" && policy !== "drop") {
    throw new SpadeError(
      "E_CONFIG",
      `invalidDesign must be "lowest" or "drop" (got ${String(policy)})`,
    );
  }
  const invalidReward = requireFinite(
    options.invalidReward ?? DESIGNER_REWARD_FLOOR,
    "invalid-design reward",
  );
  const trained: Array<{ index: number; skill: string; reward: number }> = [];
  samples.forEach((s, index) => {
    if (s.masked === true) return;
    if (s.rawReward !== null) trained.push({ index, skill: s.skill, reward: s.rawReward });
    else if (policy === "lowest") trained.push({ index, skill: s.skill, reward: invalidReward });
  });
  const centred = centreBySkill(trained);
  const out: Array<number | null> = samples.map(() => null);
  trained.forEach((t, i) => {
    out[t.index] = (centred[i] as number) * scale;
  });
  return out;
}
