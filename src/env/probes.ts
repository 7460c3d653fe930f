/**
 * @module env/probes
 * The actions the validator throws at an environment: fixed probes (empty, junk, a boxed
 * answer, one schema-valid call per tool) and the trivial policies that must not succeed.
 */
import { mulberry32 } from "../random/index.js";
import { makeAction } from "./action.js";
import { sampleFromSchema } from "./schema-sample.js";
import type { Action, EnvMeta, JsonObject } from "./types.js";

/** A named probe action. */
export interface Probe {
  label: string;
  action: Action;
}

/** A one-call action for `tool` with schema-valid arguments. */
function toolProbe(name: string, parameters: JsonObject, id: string): Action {
  const args = sampleFromSchema(parameters);
  const argsObject = typeof args === "object" && args !== null && !Array.isArray(args) ? args : {};
  return { text: "", answer: null, toolCalls: [{ id, name, arguments: argsObject }] };
}

/** Fixed probes: empty text, junk text, a boxed answer, and one schema-valid call per tool. */
export function probeActions(meta: EnvMeta): Probe[] {
  const probes: Probe[] = [
    { label: "empty text", action: makeAction("") },
    { label: "junk text", action: makeAction("qz?? 7#; lorem <b>ipsum</b> \u0000 ][") },
    { label: "boxed answer", action: makeAction("The answer is \\boxed{0}.") },
  ];
  meta.tools.forEach((tool, i) => {
    probes.push({
      label: `call ${tool.function.name}`,
      action: toolProbe(tool.function.name, tool.function.parameters, `probe_${i}`),
    });
  });
  return probes;
}

/** A policy that needs nothing but the last observation. */
export interface TrivialPolicy {
  name: string;
  /** Makes a fresh episode-local actor for `seed`. */
  start(seed: number): (observation: string) => Action;
}

/** The trivial policies: empty answers, repeating the observation, random probes. */
export function trivialPolicies(meta: EnvMeta): TrivialPolicy[] {
  const probes = probeActions(meta).map((p) => p.action);
  return [
    { name: "empty answers", start: () => () => makeAction("") },
    { name: "repeat the observation", start: () => (observation) => makeAction(observation) },
    {
      name: "random probes",
      start: (seed) => {
        const rand = mulberry32(seed ^ 0x5eed);
        return () => {
          const pick = Math.floor(rand() * (probes.length + 1));
          if (pick < probes.length) return probes[pick] as Action;
          return makeAction(`\\boxed{${Math.floor(rand() * 10)}}`);
        };
      },
    },
  ];
}
