/**
 * @module loop/library
 * The built-in library as the loop uses it: examples for the designer prompt, seeds of the
 * memory, and the pool of the fixed-environment baseline. Each program's meta is read once.
 */
import type { EnvMeta } from "../env/index.js";
import { libraryNames, resolveProgram } from "../envs/index.js";
import { loadProgram, type SandboxBackendName } from "../sandbox/index.js";

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
