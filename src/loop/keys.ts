/**
 * @module loop/keys
 * Deterministic names and seeds. Everything random in a run derives from the run seed and the
 * position of the work (step, slot, attempt, environment, episode), never from the order in
 * which concurrent work finished, so a resumed run repeats exactly what it lost.
 */

/** A 31-bit seed from the parts (FNV-1a over their text, then a final avalanche). */
export function seedOf(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  const text = parts.join("\u0000");
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 1;
}

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
