/**
 * @module loop/env-pool
 * The environments a step plays (`stepPool`), and the pool folder of the fixed-environment
 * baseline (`--designer off --env-pool DIR`): the reference walks its pool without replacement (`fixed_env_orchestrator.py`, `no_replacement`);
 * here the games are put in an order fixed by the run seed and each regeneration takes the next
 * `designsPerStep` of them (wrapping round once all were played). A game enters the store when
 * it is first drawn, its meta read once in the Python sandbox.
 */
import type { RunConfig } from "../config/index.js";
import type { Pool, PoolProgram } from "../envs/pool.js";
import { loadProgram } from "../sandbox/index.js";
import type { EnvironmentRow, RunStore } from "../store/index.js";
import { libraryEnvId, seedOf } from "./keys.js";
import { fixedEnvRow, type LibraryProgram } from "./library.js";

/** The reference's turn budget for its fixed pool (`_train_fixed_gpt55.sh`, MAX_TURNS), the constructor's `max_turns`. */
export const POOL_MAX_TURNS = 25;

/** Library environments as pool rows, created at `step`. */
function libraryRows(library: readonly LibraryProgram[], step: number): EnvironmentRow[] {
  return library.map((p) => fixedEnvRow(libraryEnvId(p.name), p.source, p.meta, step));
}

/**
 * The environments played at `step`. Designer on: those designed at the step's regeneration (if
 * every slot failed, the latest earlier pool; before any, the library). Designer off: a rotating
 * window of `designsPerStep` library environments, renewed every R steps.
 */
export function stepPool(
  config: RunConfig,
  store: RunStore,
  library: readonly LibraryProgram[],
  step: number,
): EnvironmentRow[] {
  const epoch = step - (step % config.regenerateEvery);
  const libraryPool = () => {
    if (store.environmentSummaries({ source: "library" }).length === 0)
      store.transaction(() => {
        for (const row of libraryRows(library, step)) store.insertEnvironment(row);
      });
    const rows = store.environments({ source: "library" });
    const start = (epoch / config.regenerateEvery) * config.designsPerStep;
    const n = Math.min(config.designsPerStep, rows.length);
    return Array.from({ length: n }, (_, i) => rows[(start + i) % rows.length] as EnvironmentRow);
  };
  if (config.designer === "off") return libraryPool();
  for (let e = epoch; e >= 0; e -= config.regenerateEvery) {
    const designed = store.environments({ source: "designer", step: e });
    if (designed.length > 0) return designed;
  }
  return libraryPool();
}

/** The pool's games in the run's order: by a hash of the run seed and the game's id. */
export function poolOrder(pool: Pool, runSeed: number): PoolProgram[] {
  return [...pool.programs].sort(
    (a, b) =>
      seedOf(runSeed, "pool", a.id) - seedOf(runSeed, "pool", b.id) || (a.id < b.id ? -1 : 1),
  );
}

/** The store row of a pool game, its meta read in the sandbox (skill from the manifest when it has one). */
async function poolRow(program: PoolProgram, step: number): Promise<EnvironmentRow> {
  const env = await loadProgram(program.source, {
    language: "python",
    limits: { compileTimeoutMs: 5000 },
  });
  const meta = { ...env.meta, skill: program.skill ?? env.meta.skill };
  await env.close();
  return fixedEnvRow(program.id, program.source, meta, step);
}

/**
 * The environments of `step` drawn from a pool folder: the window of the step's regeneration
 * epoch. A game that no longer loads is skipped (the reference blacklists it) and the window
 * takes the next one.
 */
export async function poolWindow(
  config: RunConfig,
  store: RunStore,
  ordered: readonly PoolProgram[],
  step: number,
): Promise<EnvironmentRow[]> {
  const epoch = step - (step % config.regenerateEvery);
  const n = Math.min(config.designsPerStep, ordered.length);
  const start = (epoch / config.regenerateEvery) * n;
  const rows: EnvironmentRow[] = [];
  for (let i = 0; rows.length < n && i < ordered.length; i++) {
    const program = ordered[(start + i) % ordered.length] as PoolProgram;
    let row = store.environment(program.id);
    if (!row) {
      try {
        row = await poolRow(program, step);
      } catch {
        continue;
      }
      const fresh = row;
      store.transaction(() => store.insertEnvironment(fresh));
    }
    rows.push(row);
  }
  return rows;
}
