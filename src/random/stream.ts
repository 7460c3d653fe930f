/**
 * @module random/stream
 * A small seeded random stream, for the places that draw a few numbers in order (probe
 * policies, memory selection, test fixtures) rather than by position (see `counter.ts`).
 */

/** mulberry32: a seeded stream of numbers in [0, 1), 32 bits of state. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
