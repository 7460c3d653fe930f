/**
 * @module envs
 * The built-in environment library: JavaScript programs in the same form the designer writes,
 * one per file in `library/`, named after `meta.name`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { SpadeError } from "../errors.js";

/**
 * Folder of the library programs. Resolved from this module so it works from `src/` (tests)
 * and from `dist/` (the built command), both two levels below the package root.
 */
export const LIBRARY_DIR = fileURLToPath(new URL("../../src/envs/library/", import.meta.url));

/** Names of the library environments, sorted. */
export function libraryNames(): string[] {
  return readdirSync(LIBRARY_DIR)
    .filter((f) => f.endsWith(".js") && !f.startsWith("."))
    .map((f) => f.slice(0, -3))
    .sort();
}

/**
 * The id of a library environment, one form everywhere: the store's environments, memory
 * references and the designer's dedupe archive.
 */
export function libraryEnvId(name: string): string {
  return `lib-${name}`;
}

/** Path of a library program by name. */
export function libraryPath(name: string): string {
  return join(LIBRARY_DIR, `${name}.js`);
}

/** A program's source and where it came from. */
export interface ProgramSource {
  /** The library name, or null for a file. */
  name: string | null;
  path: string;
  source: string;
}

/**
 * Resolves a command-line reference: an existing file path, else a library name.
 * Throws E_NOT_FOUND when it is neither.
 */
export function resolveProgram(ref: string): ProgramSource {
  if (existsSync(ref) && statSync(ref).isFile()) {
    try {
      return { name: null, path: ref, source: readFileSync(ref, "utf8") };
    } catch (cause) {
      throw new SpadeError("E_IO", `cannot read ${ref}`, { cause, nextStep: "check the file's permissions" });
    }
  }
  if (libraryNames().includes(ref)) {
    const path = libraryPath(ref);
    return { name: ref, path, source: readFileSync(path, "utf8") };
  }
  throw new SpadeError("E_NOT_FOUND", `no file or library environment named "${ref}"`, {
    nextStep: "give a path to a .js program, or a name from `spade env list`",
  });
}
