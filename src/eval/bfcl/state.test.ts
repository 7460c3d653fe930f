import { describe, expect, it } from "vitest";
import { parseJsonPy, type PyDict, pyRepr } from "../python/index.js";
import { BfclInstances } from "./executor.js";
import { BfclSession } from "./session.js";
import { stateChecker } from "./state.js";

/** A file system with an empty home, as a scenario. */
const scenario = (): PyDict =>
  parseJsonPy(
    '{"GorillaFileSystem": {"root": {"u": {"type": "directory", "contents": {}}}}}',
  ) as PyDict;

/** Instances after `doublings` rounds of cp d -> eN, mv eN -> d: 2^doublings paths, few nodes. */
function doubled(session: BfclSession, doublings: number): BfclInstances {
  const instances = new BfclInstances(session, ["GorillaFileSystem"], scenario(), false);
  instances.executeAll([
    "mkdir(dir_name='d')",
    "cd(folder='d')",
    "touch(file_name='f')",
    "cd(folder='..')",
  ]);
  for (let i = 0; i < doublings; i++)
    instances.executeAll([
      `cp(source='d', destination='e${i}')`,
      `mv(source='e${i}', destination='d')`,
    ]);
  return instances;
}

describe("stateChecker on a directory tree cp has made exponentially wide", () => {
  it("writes the first 2000 characters of the repr without writing the rest", () => {
    const session = new BfclSession();
    const groundTruth = new BfclInstances(session, ["GorillaFileSystem"], scenario(), false);
    const small = doubled(session, 8);
    const smallRoot = small.byClass.get("GorillaFileSystem")!.publicState()[1]![1];
    const expected = {
      valid: false,
      className: "GorillaFileSystem",
      differences: {
        root: {
          model: `${pyRepr(smallRoot).slice(0, 2000)}...`,
          groundTruth: "<Directory: u, Parent: None, Contents: {}>",
        },
      },
    };
    expect(stateChecker(small, groundTruth)).toEqual(expected);
    // 2^24 paths: the whole repr took 3.5 s at 2^21 and doubles with each round.
    expect(stateChecker(doubled(session, 24), groundTruth)).toEqual(expected);
  });
});
