/**
 * @module eval/bfcl/testing/doubled-tree
 * TEST DOUBLE: a GorillaFileSystem that model calls have made exponentially wide. Each round of
 * `cp d eN; mv eN d` doubles the paths under `d`, while cp shares subdirectories (as upstream's
 * shallow `contents.copy()` does), so the nodes stay few: what a hostile call sequence builds.
 */
import { parseJsonPy, type PyDict } from "../../python/index.js";
import { BfclInstances } from "../executor.js";
import type { BfclSession } from "../session.js";

/** A file system with an empty home `u`, as a scenario. */
export const emptyHomeScenario = (): PyDict =>
  parseJsonPy(
    '{"GorillaFileSystem": {"root": {"u": {"type": "directory", "contents": {}}}}}',
  ) as PyDict;

/**
 * Instances whose `d` holds 2^doublings paths to one file `f`, holding `content` when given
 * (written with echo; otherwise the file stays empty).
 */
export function doubledTree(
  session: BfclSession,
  doublings: number,
  content?: string,
): BfclInstances {
  const instances = new BfclInstances(session, ["GorillaFileSystem"], emptyHomeScenario(), false);
  instances.executeAll([
    "mkdir(dir_name='d')",
    "cd(folder='d')",
    "touch(file_name='f')",
    ...(content === undefined ? [] : [`echo(content='${content}', file_name='f')`]),
    "cd(folder='..')",
  ]);
  for (let i = 0; i < doublings; i++)
    instances.executeAll([
      `cp(source='d', destination='e${i}')`,
      `mv(source='e${i}', destination='d')`,
    ]);
  return instances;
}
