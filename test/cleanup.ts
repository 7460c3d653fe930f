/**
 * @module test/cleanup
 * What unit tests make and must remove: temporary folders (one for a whole test file, one for
 * a callback, or fresh ones removed after each test), servers closed after each test, and any
 * other thing a test starts (a mount, a child process) released after it, so a test need not
 * write its own teardown.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach } from "vitest";

/**
 * A fresh folder under the system's temporary one, named `prefix` + random characters, removed
 * after the tests of the file (or `describe`) it is created in. Call it where `afterAll` may be.
 */
export function fileTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A maker of fresh folders under the system's temporary one, named `prefix` + random characters;
 * each folder it makes is removed after the test that made it (one made outside a test, after the
 * next test). Call it where `afterEach` may be.
 */
export function tempDirsAfterEach(prefix: string): () => string {
  const made = releasedAfterEach((dir: string) => rmSync(dir, { recursive: true, force: true }));
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/**
 * A list whose items `release` ends after the test that added them, one by one in the order they
 * were added (one added outside a test, after the next test). Call it where `afterEach` may be.
 */
export function releasedAfterEach<T>(release: (item: T) => unknown): T[] {
  const added: T[] = [];
  afterEach(async () => {
    for (const item of added.splice(0)) await release(item);
  });
  return added;
}

/** Runs `body` in a fresh temporary folder and removes the folder when `body` ends, however it ends. */
export async function withTempDir<T>(
  prefix: string,
  body: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Wraps `start` (a fake server's start function) so that each thing it starts is closed after the
 * test that started it. Call it where `afterEach` may be.
 */
export function closedAfterEach<A extends unknown[], T extends { close(): Promise<void> }>(
  start: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  const open: T[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((started) => started.close()));
  });
  return async (...args) => {
    const started = await start(...args);
    open.push(started);
    return started;
  };
}
