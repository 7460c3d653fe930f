/**
 * @module envs/testing/open-library
 * TEST HELPER: opens library programs in the real sandbox and closes them all after the file.
 */
import { afterAll } from "vitest";
import type { Env } from "../../env/index.js";
import { loadProgram } from "../../sandbox/index.js";
import { resolveProgram } from "../index.js";

/** An `open(name)` for a test file; every environment it opened is closed after the file's tests. */
export function libraryOpener(): (name: string) => Promise<Env> {
  const opened: Env[] = [];
  afterAll(async () => {
    for (const env of opened) await env.close();
  });
  return async (name) => {
    const env = await loadProgram(resolveProgram(name).source);
    opened.push(env);
    return env;
  };
}
