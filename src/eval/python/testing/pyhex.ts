/**
 * @module eval/python/testing/pyhex
 * Test helper: reads Python's `float.hex()` text back into the exact double.
 */

/** Parses `float.hex()` output (normal and subnormal numbers, signed zeros, inf, nan). */
export function fromPyHex(text: string): number {
  if (text === "inf") return Infinity;
  if (text === "-inf") return -Infinity;
  if (text === "nan") return NaN;
  const m = /^(-?)0x([01])\.([0-9a-f]+)p([+-]\d+)$/.exec(text);
  if (!m) throw new Error(`not a float.hex() string: ${text}`);
  const frac = m[3]!.padEnd(13, "0");
  const mantissa = Number(m[2]) * 2 ** 52 + parseInt(frac, 16);
  const exp = Number(m[4]) - 52;
  // Two steps keep intermediate powers of two representable at both ends of the range.
  const value = exp < -1000 ? mantissa * 2 ** (exp + 100) * 2 ** -100 : mantissa * 2 ** exp;
  return m[1] === "-" ? -value : value;
}
