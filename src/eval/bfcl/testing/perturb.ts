/**
 * @module eval/bfcl/testing/perturb
 * TEST HELPER: deterministic "model outputs" made from an entry's ground truth, right and wrong
 * (dropped, repeated, reordered, early, mutated or extra calls; missing turns), for comparing the
 * port's verdicts with upstream's checker.
 */
import { parsePythonCall, type PyCall, type PyValue } from "../../python/index.js";
import type { ModelCallsByTurn } from "../checker.js";
import type { BfclEntry } from "../data.js";
import { callSource, pyCallFromJson } from "../tools.js";
import { groundTruthCall } from "./scripted-policies.js";

type Turns = string[][];

/** One perturbation: a name and how it turns the ground truth (calls per turn) into model steps. */
export interface Perturbation {
  name: string;
  apply(entry: BfclEntry): ModelCallsByTurn;
}

const oneStep = (turns: Turns): ModelCallsByTurn => turns.map((calls) => [calls]);
const copy = (entry: BfclEntry): Turns => entry.groundTruth.map((t) => [...t]);
const firstNonEmpty = (turns: Turns): number => turns.findIndex((t) => t.length > 0);

/** Rewrites the first argument of `call` for which `edit` returns a new value. */
function editFirstArg(source: string, edit: (v: PyValue) => PyValue | undefined): string {
  const call: PyCall = parsePythonCall(source);
  for (const [k, v] of Object.entries(call.kwargs)) {
    const next = edit(v);
    if (next !== undefined) return callSource({ ...call, kwargs: { ...call.kwargs, [k]: next } });
  }
  for (const [i, v] of call.args.entries()) {
    const next = edit(v);
    if (next !== undefined)
      return callSource({ ...call, args: call.args.map((a, j) => (j === i ? next : a)) });
  }
  return source;
}

/** Edits the first call (in turn order) that `edit` changes. */
function editFirstCall(
  entry: BfclEntry,
  edit: (v: PyValue) => PyValue | undefined,
): ModelCallsByTurn {
  const turns = copy(entry);
  for (const calls of turns) {
    for (let i = 0; i < calls.length; i++) {
      const next = editFirstArg(calls[i]!, edit);
      if (next !== calls[i]) {
        calls[i] = next;
        return oneStep(turns);
      }
    }
  }
  return oneStep(turns);
}

/** The perturbations, in a fixed order. */
export const PERTURBATIONS: readonly Perturbation[] = [
  { name: "identity", apply: (e) => oneStep(copy(e)) },
  { name: "one-call-per-step", apply: (e) => copy(e).map((calls) => calls.map((c) => [c])) },
  {
    name: "via-json-tool-calls",
    apply: (e) =>
      oneStep(
        copy(e).map((calls) =>
          calls.map((c) => {
            const json = groundTruthCall(e, c);
            return callSource(pyCallFromJson(json.name, json.arguments));
          }),
        ),
      ),
  },
  {
    name: "drop-last-call",
    apply: (e) => {
      const turns = copy(e);
      const k = firstNonEmpty(turns);
      if (k >= 0) turns[k]!.pop();
      return oneStep(turns);
    },
  },
  {
    name: "silent-last-turn",
    apply: (e) => {
      const turns = copy(e);
      const k = turns.map((t) => t.length > 0).lastIndexOf(true);
      if (k >= 0) turns[k] = [];
      return oneStep(turns);
    },
  },
  {
    name: "repeat-first-call",
    apply: (e) => {
      const turns = copy(e);
      const k = firstNonEmpty(turns);
      if (k >= 0) turns[k]!.splice(1, 0, turns[k]![0]!);
      return oneStep(turns);
    },
  },
  {
    name: "next-call-early",
    apply: (e) => {
      const turns = copy(e);
      for (let k = 0; k + 1 < turns.length; k++) {
        if (turns[k]!.length > 0 && turns[k + 1]!.length > 0) {
          turns[k]!.push(turns[k + 1]!.shift()!);
          break;
        }
      }
      return oneStep(turns);
    },
  },
  {
    name: "mutate-string",
    apply: (e) =>
      editFirstCall(e, (v) => (typeof v === "string" && v.length > 0 ? `${v}_x` : undefined)),
  },
  {
    name: "mutate-number",
    apply: (e) =>
      editFirstCall(e, (v) =>
        typeof v === "bigint" ? v + 1n : typeof v === "number" ? v + 1.5 : undefined,
      ),
  },
  { name: "missing-last-turn", apply: (e) => oneStep(copy(e).slice(0, -1)) },
  {
    name: "extra-unknown-call",
    apply: (e) => {
      const steps = oneStep(copy(e));
      steps[0]!.unshift(["unknown_fn(x=1)"]);
      return steps;
    },
  },
  {
    name: "reverse-each-turn",
    apply: (e) => oneStep(copy(e).map((calls) => [...calls].reverse())),
  },
  {
    name: "acts-in-empty-turn",
    apply: (e) => {
      const turns = copy(e);
      const k = turns.findIndex((t, i) => t.length === 0 && i > 0);
      const previous =
        k > 0
          ? turns
              .slice(0, k)
              .reverse()
              .find((t) => t.length > 0)
          : undefined;
      if (k > 0 && previous) turns[k] = [previous[0]!];
      return oneStep(turns);
    },
  },
];

/** The perturbations an entry gets: identity plus two more, cycling by the entry's index. */
export function perturbationsFor(index: number): Perturbation[] {
  const rest = PERTURBATIONS.slice(1);
  return [
    PERTURBATIONS[0]!,
    rest[(2 * index) % rest.length]!,
    rest[(2 * index + 1) % rest.length]!,
  ];
}
