/**
 * @module eval/python/float
 * Python's float text and rounding, bit for bit: `repr(float)`, `'%.Nf' % x` and `round(x, n)`,
 * all computed on the exact binary value with round-half-even, as CPython does.
 */

/** The exact value of a finite double as `num / den` with `den` a power of two. */
export function floatToRational(x: number): { num: bigint; den: bigint } {
  if (!Number.isFinite(x)) throw new RangeError(`not finite: ${x}`);
  if (x === 0) return { num: 0n, den: 1n };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const sign = hi >>> 31 ? -1n : 1n;
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (biased === 0) exp = -1074;
  else {
    mantissa |= 1n << 52n;
    exp = biased - 1075;
  }
  if (exp >= 0) return { num: sign * (mantissa << BigInt(exp)), den: 1n };
  return { num: sign * mantissa, den: 1n << BigInt(-exp) };
}

/** `num / den` rounded to an integer, ties to even (den > 0). */
export function divRoundHalfEven(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  let q = a / den;
  const twiceRem = (a % den) * 2n;
  if (twiceRem > den || (twiceRem === den && q % 2n === 1n)) q += 1n;
  return neg ? -q : q;
}

/** Python's `repr(x)` / `str(x)` for a float: shortest round-trip digits, Python's layout. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() with no argument yields the shortest digits that round-trip.
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(Math.abs(x).toExponential());
  if (!m) throw new RangeError(`unexpected exponential form of ${x}`);
  const digits = m[1]! + (m[2] ?? "");
  const decpt = Number(m[3]) + 1;
  if (decpt <= -4 || decpt > 16) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = decpt - 1;
    const eAbs = String(Math.abs(e)).padStart(2, "0");
    return `${sign}${mant}e${e < 0 ? "-" : "+"}${eAbs}`;
  }
  if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/** Python's `'%.{places}f' % x` (also `f"{x:.{places}f}"`): exact, ties to even. */
export function formatFixed(x: number, places: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const { num, den } = floatToRational(x);
  const negative = x < 0 || Object.is(x, -0);
  const scaled = divRoundHalfEven((num < 0n ? -num : num) * 10n ** BigInt(places), den);
  let text = scaled.toString();
  if (places > 0) {
    text = text.padStart(places + 1, "0");
    text = `${text.slice(0, -places)}.${text.slice(-places)}`;
  }
  return (negative ? "-" : "") + text;
}

/** Python's `round(x, ndigits)` for a float x: correctly rounded, ties to even, a float. */
export function roundFloat(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (ndigits > 323) return x;
  if (ndigits < -308) return 0 * x;
  const { num, den } = floatToRational(x);
  let result: number;
  if (ndigits >= 0) {
    const scale = 10n ** BigInt(ndigits);
    const q = divRoundHalfEven(num * scale, den);
    result = Number(bigDecimalText(q, ndigits));
  } else {
    const scale = 10n ** BigInt(-ndigits);
    const q = divRoundHalfEven(num, den * scale);
    result = Number(`${q}e${-ndigits}`);
  }
  // Python keeps the sign of a result that rounds to zero.
  return result === 0 ? (x < 0 ? -0 : 0) : result;
}

/** Python's `round(x)` for a float: the nearest int, ties to even. */
export function roundFloatToInt(x: number): bigint {
  if (!Number.isFinite(x))
    throw new RangeError(
      Number.isNaN(x)
        ? "cannot convert float NaN to integer"
        : "cannot convert float infinity to integer",
    );
  const { num, den } = floatToRational(x);
  return divRoundHalfEven(num, den);
}

/** Python's `round(n, ndigits)` for an int n: an int, ties to even. */
export function roundInt(n: bigint, ndigits: number): bigint {
  if (ndigits >= 0) return n;
  // |n| < 10^digits <= 10^-ndigits / 10 rounds to 0; Python (and 10n ** big) would first build
  // the power: round(5, -10**9) grinds for half a minute.
  if (-ndigits > (n < 0n ? -n : n).toString().length) return 0n;
  const scale = 10n ** BigInt(-ndigits);
  return divRoundHalfEven(n, scale) * scale;
}

/** Text of `q / 10^places` for an integer q. */
function bigDecimalText(q: bigint, places: number): string {
  const neg = q < 0n;
  let digits = (neg ? -q : q).toString();
  if (places > 0) {
    digits = digits.padStart(places + 1, "0");
    digits = `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  }
  return (neg ? "-" : "") + digits;
}
