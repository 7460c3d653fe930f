/**
 * @module eval/bfcl/classes/math-numeric
 * The two arbitrary-precision results of upstream's MathAPI, with their Python reprs:
 * `mpmath.log(v) / mpmath.log(b)` at `mp.dps = precision` (an `mpf`), and
 * `Decimal(n).sqrt()` at `getcontext().prec = precision` (a `Decimal`). Both are exact
 * bigint computations, rounded to nearest-even as mpmath and libmpdec round.
 */
import {
  divRoundHalfEven,
  floatToRational,
  PyException,
  PyObject,
  rstrip,
} from "../../python/index.js";
import { isqrt } from "./decimal-sqrt.js";

const LOG2_10 = Math.log(10) / Math.log(2);

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** An mpmath real: `man * 2^exp` at a working precision, or a special value. */
export class Mpf extends PyObject {
  readonly pyTypeName = "mpf";
  constructor(
    readonly man: bigint,
    readonly exp: number,
    /** Bits of precision of the context it was made in (decides how `repr` prints it). */
    readonly prec: number,
    readonly special: "" | "+inf" | "-inf" | "nan" = "",
  ) {
    super();
  }

  pyRepr(): string {
    return `mpf('${this.toStr(reprDigits(this.prec))}')`;
  }

  /** mpmath's `to_str(s, dps)`: floor digits, then round the last one up, fixed or exponent layout. */
  private toStr(dps: number): string {
    if (this.special) return this.special;
    if (this.man === 0n) return "0.0";
    const sign = this.man < 0n ? "-" : "";
    const man = this.man < 0n ? -this.man : this.man;
    const bc = bitLength(man);
    let [digits, exponent] = toDigitsExp(man, this.exp, bc, dps + 3);
    if (digits.length > dps && "56789".includes(digits[dps]!)) {
      digits = digits.slice(0, dps);
      let i = dps - 1;
      while (i >= 0 && digits[i] === "9") i--;
      if (i >= 0)
        digits = digits.slice(0, i) + String(Number(digits[i]) + 1) + "0".repeat(dps - i - 1);
      else {
        digits = "1" + "0".repeat(dps - 1);
        exponent += 1;
      }
    } else digits = digits.slice(0, dps);
    const minFixed = Math.min(-Math.floor(dps / 3), -5);
    let split = 1;
    if (minFixed < exponent && exponent < dps) {
      if (exponent < 0) digits = "0".repeat(-exponent) + digits;
      else {
        split = exponent + 1;
        if (split > dps) digits += "0".repeat(split - dps);
      }
      exponent = 0;
    }
    digits = `${digits.slice(0, split)}.${digits.slice(split)}`.replace(/0+$/, "");
    if (digits.endsWith(".")) digits += "0";
    if (exponent === 0) return sign + digits;
    return `${sign}${digits}e${exponent > 0 ? "+" : ""}${exponent}`;
  }
}

/** mpmath's `to_digits_exp` for |value| = man * 2^exp (exponents within +-3500 bits). */
function toDigitsExp(man: bigint, exp: number, bc: number, dps: number): [string, number] {
  const bitprec = Math.trunc(dps * LOG2_10) + 10;
  const fixprec = Math.max(bitprec - exp - bc, 0);
  const fixdps = Math.trunc(fixprec / LOG2_10 + 0.5);
  const offset = exp + fixprec;
  const sf = offset >= 0 ? man << BigInt(offset) : man >> BigInt(-offset);
  const sd = (sf * 10n ** BigInt(fixdps)) >> BigInt(fixprec);
  const digits = sd.toString();
  return [digits, digits.length - fixdps - 1];
}

/** `mpmath.libmp.repr_dps(prec)`. */
function reprDigits(prec: number): number {
  const dps = Math.max(1, Math.trunc(roundHalfEven(prec / LOG2_10)) - 1);
  return dps === 15 ? 17 : dps + 3;
}

/** Python's `round(x)` on a float. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** `mpmath.libmp.dps_to_prec(dps)`. */
export function dpsToPrec(dps: number): number {
  return Math.max(1, roundHalfEven((dps + 1) * LOG2_10));
}

/** Rounds `num / 2^shift` (shift may be negative) to `prec` bits: an Mpf. */
function roundToPrec(num: bigint, scale: number, prec: number): Mpf {
  if (num === 0n) return new Mpf(0n, 0, prec);
  const neg = num < 0n;
  const a = neg ? -num : num;
  const drop = bitLength(a) - prec;
  let man = a;
  let exp = -scale;
  if (drop > 0) {
    man = divRoundHalfEven(a, 1n << BigInt(drop));
    exp += drop;
  }
  return new Mpf(neg ? -man : man, exp, prec);
}

/**
 * Natural log of man * 2^exp (man > 0) as a fixed-point integer scaled by 2^wp, within a few
 * units of 2^-(wp - 8). x = m * 2^e with m in [1, 2); ln m = 2^(r+1) atanh((s - 1) / (s + 1))
 * for s = m^(1/2^r). The r square roots make each atanh term gain 2r bits instead of about 3,
 * so 10,000 digits take tens of milliseconds, not seconds; r extra bits cover their rounding.
 */
function lnFixed(man: bigint, exp: number, wp: number): bigint {
  const bc = bitLength(man);
  const e = exp + bc - 1;
  const r = Math.floor(Math.sqrt(wp) / 2);
  const w = wp + r + 16;
  const frac = bc - 1;
  let s = frac <= w ? man << BigInt(w - frac) : man >> BigInt(frac - w);
  for (let i = 0; i < r; i++) s = isqrt(s << BigInt(w));
  const one = 1n << BigInt(w);
  const t = ((s - one) << BigInt(w)) / (s + one);
  const lnM = (atanhFixed(t, w) << BigInt(r + 1)) >> BigInt(w - wp);
  return BigInt(e) * ln2Fixed(wp) + lnM;
}

/** atanh(t) for a fixed-point t (scaled by 2^wp, |t| < 1/2). */
function atanhFixed(t: bigint, wp: number): bigint {
  const t2 = (t * t) >> BigInt(wp);
  let term = t;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * t2) >> BigInt(wp);
  }
  return sum;
}

/** ln 2 = 2 atanh(1/3) scaled by 2^wp; each term is the last divided by 9, no multiplication. */
function ln2Fixed(wp: number): bigint {
  const w = wp + 16;
  let term = (1n << BigInt(w)) / 3n;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term /= 9n;
  }
  return (2n * sum) >> 16n;
}

/** An exact real from a Python int, float or bool, as mpmath converts it. */
export function mpfFromNumber(v: bigint | number, prec: number): Mpf {
  if (typeof v === "number") {
    if (Number.isNaN(v)) return new Mpf(0n, 0, prec, "nan");
    if (!Number.isFinite(v)) return new Mpf(0n, 0, prec, v > 0 ? "+inf" : "-inf");
    const { num, den } = floatToRational(v);
    return new Mpf(num, -(bitLength(den) - 1), prec);
  }
  return new Mpf(v, 0, prec);
}

/**
 * `mpmath.log(value) / mpmath.log(base)` at `prec` bits (see dpsToPrec) for positive (or zero) inputs.
 * Returns "zero-division" where mpmath raises ZeroDivisionError, "complex" for negative inputs
 * (mpmath would return an `mpc`; this port does not model complex results).
 */
export function mpLogRatio(value: Mpf, base: Mpf, prec: number): Mpf | "zero-division" | "complex" {
  const ln = (x: Mpf): Mpf | "complex" => {
    if (x.special === "nan") return new Mpf(0n, 0, prec, "nan");
    if (x.special) return x.special === "+inf" ? x : "complex";
    if (x.man < 0n) return "complex";
    if (x.man === 0n) return new Mpf(0n, 0, prec, "-inf");
    if (x.man === 1n << BigInt(bitLength(x.man) - 1) && x.exp + bitLength(x.man) - 1 === 0)
      return new Mpf(0n, 0, prec);
    const wp = prec + 64;
    return roundToPrec(lnFixed(x.man, x.exp, wp), wp, prec);
  };
  const a = ln(value);
  const b = ln(base);
  if (a === "complex" || b === "complex") return "complex";
  if (b.special === "" && b.man === 0n) return "zero-division";
  if (a.special || b.special) {
    if (a.special === "nan" || b.special === "nan" || (a.special && b.special))
      return new Mpf(0n, 0, prec, "nan");
    if (b.special) return new Mpf(0n, 0, prec);
    const negative = (a.special === "-inf") !== b.man < 0n;
    return new Mpf(0n, 0, prec, negative ? "-inf" : "+inf");
  }
  if (a.man === 0n) return new Mpf(0n, 0, prec);
  // |a / b| with enough extra bits and a sticky bit that one rounding is the correct one.
  const negative = a.man < 0n !== b.man < 0n;
  const am = a.man < 0n ? -a.man : a.man;
  const bm = b.man < 0n ? -b.man : b.man;
  const extra = prec + 3 + bitLength(bm);
  const num = am << BigInt(extra);
  const magnitude = ((num / bm) << 1n) | (num % bm === 0n ? 0n : 1n);
  return roundToPrec(negative ? -magnitude : magnitude, extra + 1 - (a.exp - b.exp), prec);
}

/**
 * `mpmath.mpf(text)` for a decimal string (`' 7 '`, `'0.1'`, `'1e3'`, `'inf'`): rounded to
 * `prec` bits, nearest-even, as mpmath's `from_str`. Undefined for text it does not read. Past a
 * decimal exponent of +-400 mpmath multiplies by a rounded power of ten (`mpfTimesPowerOfTen`);
 * past +-10^15 the binary exponent would lose integer precision here, so that raises.
 */
export function mpfFromDecimalString(text: string, prec: number): Mpf | undefined {
  const t = text.trim().toLowerCase();
  const special = /^([+-]?)inf(inity)?$/.exec(t);
  if (special) return new Mpf(0n, 0, prec, special[1] === "-" ? "-inf" : "+inf");
  if (t === "nan") return new Mpf(0n, 0, prec, "nan");
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/.exec(t);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  // str_to_man_exp: the fraction loses its trailing zeros before it moves the exponent.
  const fraction = rstrip(m[3] ?? "", "0");
  const digits = BigInt(`${m[2]}${fraction}` || "0");
  const exp10Big = BigInt(m[4] ?? 0) - BigInt(fraction.length);
  const sign = m[1] === "-" ? -1n : 1n;
  if (digits === 0n) return new Mpf(0n, 0, prec);
  if (exp10Big > 400n || exp10Big < -400n) {
    if (exp10Big > MAX_DECIMAL_EXPONENT || exp10Big < -MAX_DECIMAL_EXPONENT) {
      throw new PyException(
        "OverflowError",
        "decimal exponents beyond 10^15 are not supported by this port",
      );
    }
    return mpfTimesPowerOfTen(sign * digits, exp10Big, prec);
  }
  const exp10 = Number(exp10Big);
  if (exp10 >= 0) return roundToPrec(sign * digits * 10n ** BigInt(exp10), 0, prec);
  // digits / 10^k, scaled by 2^shift so the quotient keeps prec + 2 bits and a sticky bit.
  const den = 10n ** BigInt(-exp10);
  const shift = Math.max(0, prec + 3 + bitLength(den) - bitLength(digits));
  const num = digits << BigInt(shift);
  const magnitude = ((num / den) << 1n) | (num % den === 0n ? 0n : 1n);
  return roundToPrec(sign * magnitude, shift + 1, prec);
}

/** Largest decimal exponent `mpfFromDecimalString` reads. */
const MAX_DECIMAL_EXPONENT = 10n ** 15n;

/** `man * 2^exp` with `man` cut to `prec` bits toward zero (`down`) or away from it. */
function cutTo(man: bigint, exp: number, prec: number, down: boolean): [bigint, number] {
  const drop = bitLength(man) - prec;
  if (drop <= 0) return [man, exp];
  const d = BigInt(drop);
  return [down ? man >> d : -(-man >> d), exp + drop];
}

/**
 * mpmath's `mpf_pow_int(ften, n, prec, rnd)` for n > 400 with a directed rounding: binary
 * powering of 5 * 2^1, every product cut to prec + 4 * bits(n) + 4 bits, then to prec.
 */
function powerOfTenDirected(n: bigint, prec: number, down: boolean): [bigint, number] {
  const workprec = prec + 4 * bitLength(n) + 4;
  let man = 5n;
  let exp = 1;
  let pm = 1n;
  let pe = 0;
  for (;;) {
    if (n & 1n) {
      [pm, pe] = cutTo(pm * man, pe + exp, workprec, down);
      n -= 1n;
      if (n === 0n) break;
    }
    [man, exp] = cutTo(man * man, exp + exp, workprec, down);
    n >>= 1n;
  }
  return cutTo(pm, pe, prec, down);
}

/**
 * mpmath's `from_str` past a decimal exponent of +-400: `from_int(man, prec + 10)` (toward
 * zero) times `mpf_pow_int(10, exp10, prec + 10)` (toward zero; a negative power is 1 over the
 * power rounded up at prec + 15), rounded once to `prec` bits, nearest-even.
 */
function mpfTimesPowerOfTen(man: bigint, exp10: bigint, prec: number): Mpf {
  const negative = man < 0n;
  const [sm, se] = cutTo(negative ? -man : man, 0, prec + 10, true);
  let pm: bigint;
  let pe: number;
  if (exp10 > 0n) [pm, pe] = powerOfTenDirected(exp10, prec + 10, true);
  else {
    const [im, ie] = powerOfTenDirected(-exp10, prec + 15, false);
    // floor(2^k / im) keeps more than prec + 10 bits; cutting it down again is still a floor.
    const k = prec + 12 + bitLength(im);
    [pm, pe] = cutTo((1n << BigInt(k)) / im, -k - ie, prec + 10, true);
  }
  const product = sm * pm;
  return roundToPrec(negative ? -product : product, -(se + pe), prec);
}
