/**
 * @module loop/schedule
 * Which skill each design slot gets. As the reference (`spade/slime/spade_rollout.py`
 * `select_active_skills`, `orchestrator.py` `generate_games_async`): each regeneration epoch has a
 * window of k consecutive skills (wrapping), moved on by k every epoch, and slot i designs for the
 * window's skill i mod k. With the games defaults (6 skills, k = 3, 24 slots) that is 8 designs
 * each for three skills, the other three at the next regeneration; k >= the number of skills uses
 * them all every time (tool use: 6 skills x 4 designs).
 */
import { SpadeError } from "../errors.js";

/** The skills designed for at `step` (any step of the epoch gives its epoch's window). */
export function activeSkills(
  skills: readonly string[],
  step: number,
  regenerateEvery: number,
  perRegen: number | undefined,
): string[] {
  if (skills.length === 0)
    throw new SpadeError("E_CONFIG", "the run has no skills", { nextStep: "pass --skills" });
  const n = skills.length;
  const k = perRegen ?? n;
  if (!Number.isInteger(k) || k < 1)
    throw new SpadeError("E_CONFIG", `skillsPerRegen must be an integer >= 1 (got ${k})`);
  if (k >= n) return [...skills];
  const epoch = Math.floor(step / regenerateEvery);
  const start = (epoch * k) % n;
  return Array.from({ length: k }, (_, j) => skills[(start + j) % n] as string);
}

/** The skill of design slot `slot` at `step`. */
export function slotSkill(
  skills: readonly string[],
  step: number,
  slot: number,
  regenerateEvery: number,
  perRegen: number | undefined,
): string {
  const active = activeSkills(skills, step, regenerateEvery, perRegen);
  return active[slot % active.length] as string;
}
