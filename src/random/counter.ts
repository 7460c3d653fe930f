/**
 * @module random/counter
 * A counter-based random number: a pure function of (seed, draw, attempt). Nothing is carried
 * from one draw to the next, so resuming at draw k needs only the number k.
 */

const MASK_64 = (1n << 64n) - 1n;
/** 2^64 / golden ratio, the increment of SplitMix64. */
const GOLDEN_GAMMA = 0x9e3779b97f4a7c15n;

/** The SplitMix64 finaliser (exported for its test): a bijection on 64-bit values that scatters every input bit. */
export function mix64(value: bigint): bigint {
  let z = value & MASK_64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK_64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK_64;
  return z ^ (z >> 31n);
}

/**
 * A number in [0, 1) with 53 random bits, fixed by `seed` (any safe integer), `draw` and
 * `attempt` (non-negative safe integers). Each key is hashed in turn through SplitMix64, so
 * distinct (draw, attempt) pairs under one seed give independent-looking values.
 */
export function uniformAt(seed: number, draw: number, attempt = 0): number {
  let h = mix64(BigInt.asUintN(64, BigInt(seed)) + GOLDEN_GAMMA);
  h = mix64(h + BigInt(draw) * GOLDEN_GAMMA);
  h = mix64(h + BigInt(attempt) * GOLDEN_GAMMA);
  return Number(h >> 11n) / 2 ** 53;
}

/** An integer in [0, n) from `uniformAt` (bias below n / 2^53, nil for any real corpus). */
export function indexAt(n: number, seed: number, draw: number, attempt = 0): number {
  return Math.floor(uniformAt(seed, draw, attempt) * n);
}
