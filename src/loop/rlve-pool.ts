/**
 * @module loop/rlve-pool
 * The RLVE baseline (`--designer off --env-pool rlve:DIR`) as the reference's fixed-env
 * orchestrator runs it with its sliding-window controller: every regeneration epoch a uniform
 * draw of `designsPerStep` environments; every step each one's difficulty drawn from its window;
 * after the step each finished play counts towards promotion (rl/difficulty). The windows are run
 * state, committed with the step, so a resumed run draws the same difficulties.
 */
import type { RunConfig } from "../config/index.js";
import { rlveEnvId, rlveProgram, RLVE_MAX_DIFFICULTY, type RlveEnvironment } from "../envs/rlve.js";
import {
  initialWindow,
  sampleDifficulty,
  updateWindow,
  type DifficultyWindow,
  type SlidingWindowOptions,
} from "../rl/index.js";
import { loadProgram } from "../sandbox/index.js";
import type { EnvironmentRow, EpisodeRow, RunStore } from "../store/index.js";
import { seedOf } from "./keys.js";
import { fixedEnvRow } from "./library.js";

/** The run-state key of the controller's windows. */
export const DIFFICULTY_STATE = "difficulty";

/** Each RLVE environment's window, by identifier (absent: a fresh window at 0). */
export type DifficultyState = Record<string, DifficultyWindow>;

/** An environment of a step with the difficulty it is played at and its store row. */
export interface RlvePick {
  id: string;
  difficulty: number;
  row: EnvironmentRow;
}

/** The controller's settings from the run's. */
export function controllerOptions(config: RunConfig): SlidingWindowOptions {
  return {
    tauAcc: config.difficultyTauAcc,
    tauNum: config.difficultyTauNum,
    dDelta: config.difficultyDDelta,
    maxDifficulty: RLVE_MAX_DIFFICULTY,
  };
}

/** The environments in the order of epoch `epoch`'s draw (uniform without replacement, keyed by the run seed). */
function drawOrder(config: RunConfig, envs: readonly RlveEnvironment[], epoch: number) {
  return [...envs].sort(
    (a, b) =>
      seedOf(config.seed, "rlve", epoch, a.id) - seedOf(config.seed, "rlve", epoch, b.id) ||
      (a.id < b.id ? -1 : 1),
  );
}

/** The store row of `env` at `difficulty`, its meta read in the Python sandbox. */
async function rlveRow(env: RlveEnvironment, difficulty: number, step: number) {
  const code = rlveProgram(env, difficulty);
  const program = await loadProgram(code, {
    language: "python",
    limits: { compileTimeoutMs: 5000 },
  });
  const meta = program.meta;
  await program.close();
  return fixedEnvRow(rlveEnvId(env.id, difficulty), code, meta, step);
}

/**
 * The environments of `step` with their difficulties: the first `designsPerStep` of the epoch's
 * draw that load in the sandbox (one that does not, e.g. importing a package the sandbox lacks,
 * is added to `unusable` and the next one taken), each at a difficulty drawn from its window in
 * `windows` (the controller's state before the step).
 */
export async function rlveWindow(
  config: RunConfig,
  store: RunStore,
  envs: readonly RlveEnvironment[],
  step: number,
  unusable: Set<string>,
  windows: DifficultyState,
): Promise<RlvePick[]> {
  const epoch = step - (step % config.regenerateEvery);
  const n = Math.min(config.designsPerStep, envs.length);
  const picks: RlvePick[] = [];
  for (const env of drawOrder(config, envs, epoch)) {
    if (picks.length >= n) break;
    if (unusable.has(env.id)) continue;
    const window = windows[env.id] ?? initialWindow(0);
    const difficulty = sampleDifficulty(
      window,
      seedOf(config.seed, "difficulty", step, env.id) / 2 ** 31,
    );
    let row = store.environment(rlveEnvId(env.id, difficulty));
    if (!row) {
      try {
        row = await rlveRow(env, difficulty, step);
      } catch {
        unusable.add(env.id);
        continue;
      }
      const fresh = row;
      store.transaction(() => store.insertEnvironment(fresh));
    }
    picks.push({ id: env.id, difficulty, row });
  }
  return picks;
}

/**
 * The windows after the plays of a step, as the reference updates its controller: every play of
 * `picks` that did not fail, in order, with its summed reward (a success is a reward above 0).
 */
export function updateDifficulty(
  windows: DifficultyState,
  picks: readonly RlvePick[],
  episodes: readonly EpisodeRow[],
  options: SlidingWindowOptions,
): DifficultyState {
  const next = { ...windows };
  for (const pick of picks) {
    const plays = episodes
      .filter((e) => e.envId === pick.row.id && e.failure === null)
      .sort((a, b) => a.idx - b.idx);
    for (const play of plays) {
      const reward = play.rewards.reduce((sum, r) => sum + r, 0);
      next[pick.id] = updateWindow(
        next[pick.id] ?? initialWindow(0),
        pick.difficulty,
        reward,
        options,
      );
    }
  }
  return next;
}
