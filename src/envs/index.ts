/**
 * @module envs
 * The built-in environment library: JavaScript programs in the same form the designer writes,
 * one per file in `library/`, named after `meta.name`.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { SpadeError } from "../errors.js";
import { readProgramFile } from "./program-file.js";

export { decodeProgramText, MAX_PROGRAM_FILE_BYTES, readProgramFile } from "./program-file.js";
export {
  DEFAULT_REMOTE_MAX_TURNS,
  DEFAULT_REMOTE_MESSAGE_BYTES,
  isOpenEnvRef,
  MAX_REMOTE_MESSAGE_BYTES,
  OPENENV_SCHEMES,
  parseOpenEnvRef,
  remoteMeta,
} from "./openenv-ref.js";
export type { OpenEnvTarget } from "./openenv-ref.js";
export { OpenEnvRemoteEnv, openRemoteEnv } from "./openenv-remote.js";

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
 * Resolves a command-line reference: an existing path, else a library name. Throws E_IO when the
 * path exists but is not a readable UTF-8 program file of at most MAX_PROGRAM_FILE_BYTES (see
 * `readProgramFile`), E_NOT_FOUND when it is neither a path nor a library name.
 */
export function resolveProgram(ref: string): ProgramSource {
  try {
    return { name: null, path: ref, source: readProgramFile(ref) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") {
      throw new SpadeError("E_IO", `${ref}: permission denied`, {
        cause: err,
        nextStep: "check the permissions of the file and its folders",
      });
    }
    if (err instanceof SpadeError) throw err;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "ENAMETOOLONG") {
      throw new SpadeError("E_IO", `${ref}: cannot be read (${code ?? String(err)})`, {
        cause: err,
        nextStep: "check the path",
      });
    }
  }
  if (libraryNames().includes(ref)) {
    const path = libraryPath(ref);
    return { name: ref, path, source: readProgramFile(path) };
  }
  throw new SpadeError("E_NOT_FOUND", `no file or library environment named "${ref}"`, {
    nextStep: "give a path to a .js program, or a name from `spade env list`",
  });
}
