import { describe, expect, it } from "vitest";
import { checkEntry, isEmptyExecuteResponse, missingUnordered } from "./checker.js";
import type { BfclEntry } from "./data.js";
import { pyDict } from "../python/index.js";

/** A hand-written entry on a tiny file system (no benchmark data needed). */
const entry: BfclEntry = {
  id: "multi_turn_base_999",
  category: "base",
  question: [
    [{ role: "user", content: "make a folder" }],
    [{ role: "user", content: "what is here?" }],
    [{ role: "user", content: "?" }],
  ],
  initialConfig: pyDict({
    GorillaFileSystem: pyDict({
      root: pyDict({ home: pyDict({ type: "directory", contents: pyDict({}) }) }),
    }),
  }),
  involvedClasses: ["GorillaFileSystem"],
  missedFunction: {},
  groundTruth: [["mkdir(dir_name='a')"], ["ls()"], []],
};

describe("upstream's response-checker helpers", () => {
  it("counts results as a multiset, in any order", () => {
    expect(missingUnordered(["x", "x", "y"], ["y", "x", "z"])).toEqual(["x"]);
    expect(missingUnordered(["x"], ["z", "x"])).toEqual([]);
    expect(missingUnordered([], [])).toEqual([]);
  });

  it("treats no calls, or one empty call, as an empty response", () => {
    expect([
      isEmptyExecuteResponse([]),
      isEmptyExecuteResponse([""]),
      isEmptyExecuteResponse(["ls()"]),
      isEmptyExecuteResponse(["", ""]),
    ]).toEqual([true, true, false, false]);
  });
});

describe("checkEntry", () => {
  it("accepts the ground truth, extra harmless calls and calls made a turn early", () => {
    expect(checkEntry(entry, [[["mkdir(dir_name='a')"]], [["ls()"]], []])).toEqual({ valid: true });
    expect(
      checkEntry(entry, [
        [["pwd()"], ["mkdir(dir_name='a')", "ls()"]],
        [["cd(folder='a')"], ["cd(folder='..')"]],
        [[""]],
      ]),
    ).toEqual({ valid: true });
    // ls() in turn 0 already produced turn 1's result; turn 1 still needs a call of its own.
    expect(checkEntry(entry, [[["mkdir(dir_name='a')", "ls()"]], [["pwd()"]], []])).toEqual({
      valid: true,
    });
  });

  it("names the failure as upstream does", () => {
    expect(checkEntry(entry, [[["mkdir(dir_name='b')"]], [["ls()"]], []])).toMatchObject({
      valid: false,
      turn: 0,
      errorType: "multi_turn:instance_state_mismatch",
      errorMessage:
        "Model instance for GorillaFileSystem does not match the state with ground truth instance.",
    });
    expect(checkEntry(entry, [[["mkdir(dir_name='a')"]], [["pwd()"]], []])).toEqual({
      valid: false,
      turn: 1,
      errorType: "multi_turn:execution_response_mismatch",
      errorMessage:
        "Model response execution results so far does not contain all the ground truth response execution results for turn 1.",
      missingResults: ['{"current_directory_content": ["a"]}'],
    });
    expect(checkEntry(entry, [[[""]], [["ls()"]], []])).toEqual({
      valid: false,
      turn: 0,
      errorType: "multi_turn:empty_turn_model_response",
      errorMessage: "Model response list is empty for turn 0",
    });
    expect(checkEntry(entry, [[["mkdir(dir_name='a')"]], [["ls()"]]])).toMatchObject({
      valid: false,
      errorType: "multi_turn:force_terminated",
    });
  });

  it("does not check a turn whose ground truth is empty, but its calls still change the state", () => {
    const shifted: BfclEntry = { ...entry, groundTruth: [["mkdir(dir_name='a')"], [], ["ls()"]] };
    expect(
      checkEntry(shifted, [[["mkdir(dir_name='a')"]], [["rmdir(dir_name='a')"]], [["ls()"]]]),
    ).toMatchObject({
      valid: false,
      turn: 2,
      errorType: "multi_turn:instance_state_mismatch",
    });
  });
});
