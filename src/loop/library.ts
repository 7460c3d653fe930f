/**
 * @module loop/library
 * The built-in library as the loop uses it: examples for the designer prompt, seeds of the
 * memory, and the pool of the fixed-environment baseline. Each program's meta is read once.
 */
import type { EnvMeta } from "../env/index.js";
import { libraryNames, resolveProgram } from "../envs/index.js";
import { loadProgram, type SandboxBackendName } from "../sandbox/index.js";
import { EMPTY_STATS, type EnvironmentRow } from "../store/index.js";

/** A library program with its meta. */
export interface LibraryProgram {
  name: string;
  source: string;
  meta: EnvMeta;
}

/** Loads every library program once to read its meta. */
export async function loadLibrary(backend: SandboxBackendName): Promise<LibraryProgram[]> {
  const programs: LibraryProgram[] = [];
  for (const name of libraryNames()) {
    const { source } = resolveProgram(name);
    const env = await loadProgram(source, { backend });
    programs.push({ name, source, meta: env.meta });
    await env.close();
  }
  return programs;
}

/**
 * The store row of a fixed environment (a library program, a pool game or a remote environment):
 * source "library", made at `step`, no slot, document or hint, and no plays yet.
 */
export function fixedEnvRow(id: string, code: string, meta: EnvMeta, step: number): EnvironmentRow {
  return {
    id,
    name: meta.name,
    skill: meta.skill,
    description: meta.description,
    code,
    meta,
    source: "library",
    createdStep: step,
    slot: null,
    docId: null,
    hint: null,
    stats: EMPTY_STATS,
  };
}
