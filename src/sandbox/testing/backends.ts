/**
 * @module sandbox/testing/backends
 * TEST HELPER: backends a test file starts (closed after each test), and the two guests the
 * runner tests put side by side in one runner.
 */
import { afterEach } from "vitest";
import { ProgramEnv } from "../program-env.js";
import type { SandboxBackend, SandboxLimits } from "../types.js";

/** Registers an `afterEach` that closes every backend passed to the returned function. */
export function closedAfterEach(): <B extends { close(): void }>(backend: B) => B {
  const backends: Array<{ close(): void }> = [];
  afterEach(() => {
    for (const b of backends.splice(0)) b.close();
  });
  return (backend) => {
    backends.push(backend);
    return backend;
  };
}

/** Two environments of `source` on `backend` (one runner: the same one), both reset with seed 1. */
export async function victimAndSibling(
  backend: SandboxBackend,
  source: string,
  limits: SandboxLimits,
): Promise<{ victim: ProgramEnv; sibling: ProgramEnv }> {
  const victim = await ProgramEnv.create(backend, source, limits);
  const sibling = await ProgramEnv.create(backend, source, limits);
  await victim.reset(1);
  await sibling.reset(1);
  return { victim, sibling };
}
