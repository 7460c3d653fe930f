/**
 * @module random
 * Hashing and seeded randomness in one place: FNV-1a and seeds from parts, the counter-based
 * SplitMix64 draw that resumes at any position, and a mulberry32 stream. Pure: no clock, no I/O.
 * (The sandbox prelude seeds the guest's Math.random in guest code and cannot import this.)
 */
export { fnv1a32, seedOf } from "./hash.js";
export { indexAt, mix64, uniformAt } from "./counter.js";
export { mulberry32 } from "./stream.js";
