/**
 * @module eval/bfcl/classes/decimal-sqrt
 * Python's `Decimal(x).sqrt()` under a context precision: exact conversion from int or float,
 * a correctly rounded (half-even) square root reduced to the ideal exponent when exact, and
 * `str()` / `repr()` in Python's to-scientific-string form.
 */
import { floatToRational, PyObject } from "../../python/index.js";

/** A finite non-negative Python Decimal `coefficient * 10^exponent`. */
export class PyDecimal extends PyObject {
  readonly pyTypeName = "Decimal";
  constructor(
    readonly coefficient: bigint,
    readonly exponent: number,
  ) {
    super();
  }

  /** Python's `str(Decimal)`. */
  override pyStr(): string {
    const digits = this.coefficient.toString();
    const adjusted = this.exponent + digits.length - 1;
    if (this.exponent <= 0 && adjusted >= -6) {
      if (this.exponent === 0) return digits;
      const point = digits.length + this.exponent;
      if (point > 0) return `${digits.slice(0, point)}.${digits.slice(point)}`;
      return `0.${"0".repeat(-point)}${digits}`;
    }
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${mantissa}E${adjusted >= 0 ? "+" : "-"}${Math.abs(adjusted)}`;
  }

  pyRepr(): string {
    return `Decimal('${this.pyStr()}')`;
  }
}

/** `Decimal(x)` for a non-negative int or float: the exact value. */
export function decimalFromNumber(v: bigint | number): PyDecimal {
  if (typeof v === "bigint") return new PyDecimal(v, 0);
  let { num, den } = floatToRational(v);
  // The smallest exact form, as Decimal(float) gives: 0.25 -> Decimal('0.25').
  while (den > 1n && num % 2n === 0n) {
    num /= 2n;
    den /= 2n;
  }
  if (den === 1n) return new PyDecimal(num, 0);
  // num / 2^k = num * 5^k / 10^k.
  const k = den.toString(2).length - 1;
  return new PyDecimal(num * 5n ** BigInt(k), -k);
}

/**
 * `math.isqrt(n)` for n >= 0: the root of n's top half (recursively), then one Newton step, as
 * CPython computes it; a few full-size divisions instead of one per bit of precision.
 */
export function isqrt(n: bigint): bigint {
  if (n < 1n << 52n) {
    let r = BigInt(Math.floor(Math.sqrt(Number(n))));
    while (r * r > n) r -= 1n;
    while ((r + 1n) * (r + 1n) <= n) r += 1n;
    return r;
  }
  const shift = BigInt(Math.floor((n.toString(2).length - 1) / 4));
  // a approximates sqrt(n) to about a quarter of n's bits; Newton doubles that, from above.
  let a = (isqrt(n >> (2n * shift)) + 1n) << shift;
  a = (a + n / a) >> 1n;
  while (a * a > n) a -= 1n;
  return a;
}

function digitCount(n: bigint): number {
  return n === 0n ? 1 : n.toString().length;
}

/** `Decimal.sqrt()` at `prec` significant digits (round half even), for d >= 0. */
export function decimalSqrt(d: PyDecimal, prec: number): PyDecimal {
  const ideal = Math.floor(d.exponent / 2);
  if (d.coefficient === 0n) return new PyDecimal(0n, ideal);
  // Scale c * 10^e to c' * 10^(2f) with c' large enough for prec + 2 root digits.
  let shift = Math.max(0, 2 * (prec + 2) - digitCount(d.coefficient) + 1);
  if ((d.exponent - shift) % 2 !== 0) shift += 1;
  const scaled = d.coefficient * 10n ** BigInt(shift);
  let root = isqrt(scaled);
  let exact = root * root === scaled;
  let exponent = (d.exponent - shift) / 2;
  const excess = digitCount(root) - prec;
  if (excess > 0) {
    const unit = 10n ** BigInt(excess);
    const rest = root % unit;
    root /= unit;
    exponent += excess;
    const half = unit / 2n;
    if (rest > half || (rest === half && (!exact || root % 2n === 1n))) root += 1n;
    if (rest !== 0n) exact = false;
    if (digitCount(root) > prec) {
      root /= 10n;
      exponent += 1;
    }
  }
  if (exact) {
    while (exponent < ideal && root % 10n === 0n) {
      root /= 10n;
      exponent += 1;
    }
  }
  return new PyDecimal(root, exponent);
}
