/**
 * @module env/language
 * The language of an environment program told from its code: what the loop loads a stored
 * program with, and the store's `language` column.
 */

/** What a stored environment's code is: a JavaScript or Python program, or an OpenEnv reference. */
export type StoredLanguage = "javascript" | "python" | "openenv";

/**
 * The language of a program's source: Python when a line opens a class Python's way
 * (`class Name:` or `class Name(Base):`) and no JavaScript `class Environment {` is present.
 * Stored environments keep only their code, so the loop tells the two apart by this.
 */
export function detectProgramLanguage(source: string): "javascript" | "python" {
  if (/\bclass\s+Environment\s*(?:extends\s+[\w.]+\s*)?\{/.test(source)) return "javascript";
  return /^class\s+\w+\s*(?:\([^)]*\))?\s*:/m.test(source) ? "python" : "javascript";
}

/** The language of a stored environment's code: `openenv` for a remote reference (`openenv+ws://...`). */
export function storedLanguage(code: string): StoredLanguage {
  return /^openenv\+wss?:\/\//.test(code) ? "openenv" : detectProgramLanguage(code);
}
