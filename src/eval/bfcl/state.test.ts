import { describe, expect, it } from "vitest";
import { pyRepr } from "../python/index.js";
import { BfclInstances } from "./executor.js";
import { BfclSession } from "./session.js";
import { stateChecker } from "./state.js";
import { doubledTree, emptyHomeScenario } from "./testing/doubled-tree.js";

describe("stateChecker on a directory tree cp has made exponentially wide", () => {
  it("writes the first 2000 characters of the repr without writing the rest", () => {
    const session = new BfclSession();
    const groundTruth = new BfclInstances(
      session,
      ["GorillaFileSystem"],
      emptyHomeScenario(),
      false,
    );
    const small = doubledTree(session, 8);
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
    expect(stateChecker(doubledTree(session, 24), groundTruth)).toEqual(expected);
  });
});
