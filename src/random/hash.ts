/**
 * @module random/hash
 * FNV-1a, the one string hash SPADE uses for seeds and shingles, and a seed derived from it.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The 32-bit FNV-1a hash of a string's UTF-16 code units, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/**
 * A 31-bit seed from the parts: FNV-1a over their text (joined by NUL), then the murmur3
 * finaliser, so parts that differ in one character give unrelated seeds.
 */
export function seedOf(...parts: Array<string | number>): number {
  let h = fnv1a32(parts.join("\u0000"));
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 1;
}
