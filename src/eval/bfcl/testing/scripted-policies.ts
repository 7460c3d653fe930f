/**
 * @module eval/bfcl/testing/scripted-policies
 * TEST DOUBLES: scripted policies for BFCL environments. They read the ground truth directly
 * (no model) and exist only to prove the Env scores a perfect run 1 and a wrong run 0.
 */
import type { Action, JsonObject } from "../../../env/types.js";
import type { Agent } from "../../../rollout/index.js";
import { parsePythonCall } from "../../python/index.js";
import type { BfclEntry } from "../data.js";
import { createApi } from "../classes/index.js";
import { BfclSession } from "../session.js";
import { jsonArgsOf } from "../tools.js";

const END_TURN: Action = { text: "Done.", answer: null, toolCalls: [] };

/** Keyword arguments of a ground-truth call string, positional ones named by the method signature. */
export function groundTruthCall(
  entry: BfclEntry,
  source: string,
): { name: string; arguments: JsonObject } {
  const call = parsePythonCall(source);
  const session = new BfclSession();
  const params =
    entry.involvedClasses
      .map((c) => createApi(c, session).methods.get(call.name)?.params)
      .filter((p) => p !== undefined)
      .at(-1) ?? [];
  const kwargs = {
    ...Object.fromEntries(call.args.map((v, i) => [params[i]!.name, v])),
    ...call.kwargs,
  };
  return { name: call.name, arguments: jsonArgsOf(kwargs) };
}

/**
 * TEST DOUBLE: per turn, sends the ground-truth calls as JSON tool calls in one step (optionally
 * altered by `mutate`), then ends the turn with a text answer.
 */
export function groundTruthPolicy(
  entry: BfclEntry,
  mutate: (
    turn: number,
    calls: Array<{ name: string; arguments: JsonObject }>,
  ) => Array<{ name: string; arguments: JsonObject }> = (_t, c) => c,
): Agent {
  let turn = 0;
  let issued = false;
  return async () => {
    const expected = entry.groundTruth[turn] ?? [];
    if (!issued && expected.length > 0) {
      issued = true;
      const calls = mutate(
        turn,
        expected.map((source) => groundTruthCall(entry, source)),
      );
      if (calls.length > 0)
        return {
          text: "",
          answer: null,
          toolCalls: calls.map((c, i) => ({ id: `gt_${turn}_${i}`, ...c })),
        };
    }
    turn++;
    issued = false;
    return END_TURN;
  };
}

/** TEST DOUBLE: never calls a tool (every turn ends at once). */
export const silentPolicy: Agent = async () => END_TURN;

/** TEST DOUBLE: calls `name(arguments)` forever. */
export function repeatingPolicy(name: string, args: JsonObject = {}): Agent {
  let n = 0;
  return async () => ({
    text: "",
    answer: null,
    toolCalls: [{ id: `r${n++}`, name, arguments: args }],
  });
}
