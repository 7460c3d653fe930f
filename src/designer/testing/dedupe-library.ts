/**
 * @module designer/testing/dedupe-library
 * TEST HELPER: the library programs as dedupe sees them (source and description), and disguised
 * copies of a program, shared by the dedupe tests.
 */
import { libraryNames, resolveProgram } from "../../envs/index.js";
import { loadProgram } from "../../sandbox/index.js";

/** A library program's name, source and `meta.description`. */
export interface DedupeLibraryProgram {
  name: string;
  source: string;
  description: string;
}

/** Every library program, its description read by loading it in the sandbox. */
export async function loadDedupeLibrary(): Promise<DedupeLibraryProgram[]> {
  const library: DedupeLibraryProgram[] = [];
  for (const name of libraryNames()) {
    const { source } = resolveProgram(name);
    const env = await loadProgram(source);
    library.push({ name, source, description: env.meta.description });
    await env.close();
  }
  return library;
}

/** Renames every identifier-like word that is not a keyword, and shifts every integer: a disguised copy. */
export function disguise(source: string): string {
  const keep = new Set(
    "break case catch class const continue default delete do else extends false finally for function if in instanceof let new null of return static super switch this throw true try typeof undefined var void while get set".split(
      " ",
    ),
  );
  return source
    .replace(/\b[A-Za-z_][A-Za-z0-9_]*\b/g, (w) => (keep.has(w) ? w : `${w}Q`))
    .replace(/\b\d+\b/g, (n) => String(Number(n) + 3));
}
