/**
 * @module sandbox/testing/host
 * TEST HELPERS for attack suites: the file escapes try to create on the host, and the host's
 * resident memory before and after a hostile program.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Bytes in a MiB. */
export const MIB = 1024 * 1024;

/** A host file an attack suite's escapes try to create (it must never exist): its path and a JSON/Python string literal of it. */
export function escapeMarker(suite: string): { path: string; literal: string } {
  const path = join(tmpdir(), `spade-${suite}-attack-${process.pid}`);
  return { path, literal: JSON.stringify(path) };
}

/** The host's resident memory now and its peak so far, in bytes. */
export function hostRss(): { rss: number; peak: number } {
  return { rss: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024 };
}
