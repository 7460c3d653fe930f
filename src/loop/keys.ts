/**
 * @module loop/keys
 * Deterministic names and seeds. Everything random in a run derives from the run seed and the
 * position of the work (step, slot, attempt, environment, episode), never from the order in
 * which concurrent work finished, so a resumed run repeats exactly what it lost.
 */

import { seedOf } from "../random/index.js";

/** A 31-bit seed from the parts (defined with the other hashing helpers). */
export { seedOf };

/** Id of the environment designed in `slot` at `step`. */
export function designedEnvId(step: number, slot: number): string {
  return `d${step}-${slot}`;
}

/** Id of a library environment (one form everywhere; defined beside the library). */
export { libraryEnvId } from "../envs/index.js";

/** Sample reference of an agent episode: `<envId>/<idx>`. */
export function episodeRef(envId: string, idx: number): string {
  return `${envId}/${idx}`;
}

/** The episode a sample reference names: a filled batch's copy `<envId>/<idx>#<k>` names `<envId>/<idx>`. */
export function episodeOfRef(ref: string): string {
  const hash = ref.indexOf("#");
  return hash < 0 ? ref : ref.slice(0, hash);
}

/** Sample reference of a design attempt: `<step>/<slot>/<attempt>`. */
export function designRef(step: number, slot: number, attempt: number): string {
  return `${step}/${slot}/${attempt}`;
}

/** Seeds of the unhinted plays of `envId` at `step` (hinted plays reuse them, paired). */
export function playSeeds(runSeed: number, step: number, envId: string, plays: number): number[] {
  return Array.from({ length: plays }, (_, i) => seedOf(runSeed, "play", step, envId, i));
}
