/**
 * @module eval/python/ops
 * Python semantics for the operations ported benchmark code performs on untyped values:
 * arithmetic and comparison across int/float/bool, truthiness, `len`, `float()`, and the
 * `PyException` that carries Python's exception type and message.
 */
import { pyRepr } from "./format.js";
import { PyTuple, pyTypeName, type PyValue } from "./value.js";

/**
 * Largest int result `pyPow` computes, in bits (about 315,000 decimal digits, a fifth of a second
 * to compute and print); beyond it `pyPow` raises OverflowError instead of blocking the process.
 */
export const MAX_INT_POW_BITS = 1 << 20;

/** A Python exception raised by ported code; `message` is what `str(e)` prints. */
export class PyException extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
    this.name = "PyException";
  }
}

/** `TypeError(message)`. */
export function typeError(message: string): PyException {
  return new PyException("TypeError", message);
}

/** `KeyError(key)`: `str()` of a KeyError is the repr of its key. */
export function keyError(key: PyValue): PyException {
  return new PyException("KeyError", pyRepr(key));
}

/** `AttributeError` for `obj.name` on a value without that attribute. */
export function attributeError(obj: PyValue, name: string): PyException {
  return new PyException(
    "AttributeError",
    `'${pyTypeName(obj)}' object has no attribute '${name}'`,
  );
}

/** `ValueError(message)`. */
export function valueError(message: string): PyException {
  return new PyException("ValueError", message);
}

type Num = bigint | number;

/** The number a bool/int/float stands for, or undefined for other types. */
export function asNumber(v: PyValue): Num | undefined {
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "bigint" || typeof v === "number") return v;
  return undefined;
}

/** Python's `float(int)`: correctly rounded, OverflowError beyond the double range. */
export function intToFloat(n: bigint): number {
  const x = Number(n);
  if (!Number.isFinite(x))
    throw new PyException("OverflowError", "int too large to convert to float");
  return x;
}

function toF(n: Num): number {
  return typeof n === "number" ? n : intToFloat(n);
}

function operands(op: string, a: PyValue, b: PyValue): [Num, Num] {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x === undefined || y === undefined) {
    throw typeError(
      `unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`,
    );
  }
  return [x, y];
}

/** `a + b` (numbers, str + str, list + list). */
export function pyAdd(a: PyValue, b: PyValue): PyValue {
  if (typeof a === "string" && typeof b === "string") return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (typeof a === "string" || typeof b === "string") {
    if (typeof a === "string")
      throw typeError(`can only concatenate str (not "${pyTypeName(b)}") to str`);
  }
  const [x, y] = operands("+", a, b);
  if (typeof x === "bigint" && typeof y === "bigint") return x + y;
  return toF(x) + toF(y);
}

/** `a - b`. */
export function pySub(a: PyValue, b: PyValue): Num {
  const [x, y] = operands("-", a, b);
  if (typeof x === "bigint" && typeof y === "bigint") return x - y;
  return toF(x) - toF(y);
}

/** `a * b` for numbers. */
export function pyMul(a: PyValue, b: PyValue): Num {
  const [x, y] = operands("*", a, b);
  if (typeof x === "bigint" && typeof y === "bigint") return x * y;
  return toF(x) * toF(y);
}

/** `a / b` (always a float; ZeroDivisionError on zero). */
export function pyTrueDiv(a: PyValue, b: PyValue): number {
  const [x, y] = operands("/", a, b);
  if (typeof x === "bigint" && typeof y === "bigint") {
    if (y === 0n) throw new PyException("ZeroDivisionError", "division by zero");
    return intTrueDiv(x, y);
  }
  const d = toF(y);
  if (d === 0) throw new PyException("ZeroDivisionError", "float division by zero");
  return toF(x) / d;
}

/** int / int correctly rounded, as CPython computes it even beyond 2^53. */
function intTrueDiv(x: bigint, y: bigint): number {
  const fx = Number(x);
  const fy = Number(y);
  if (Number.isSafeInteger(fx) && Number.isSafeInteger(fy)) return fx / fy;
  // Scale so the quotient keeps 60+ significant bits plus a sticky bit, then round once.
  const neg = x < 0n !== y < 0n;
  const ax = x < 0n ? -x : x;
  const ay = y < 0n ? -y : y;
  const shift = Math.max(0, 60 + ay.toString(2).length - ax.toString(2).length);
  const scaled = ax << BigInt(shift);
  const q = scaled / ay;
  const sticky = scaled % ay === 0n ? 0n : 1n;
  const value = Number((q << 1n) | sticky) * 2 ** -(shift + 1);
  return neg ? -value : value;
}

/** `a % b` with Python's sign rule (result takes the divisor's sign). */
export function pyMod(a: PyValue, b: PyValue): Num {
  const [x, y] = operands("%", a, b);
  if (typeof x === "bigint" && typeof y === "bigint") {
    if (y === 0n) throw new PyException("ZeroDivisionError", "integer division or modulo by zero");
    const r = x % y;
    return r !== 0n && r < 0n !== y < 0n ? r + y : r;
  }
  const fx = toF(x);
  const fy = toF(y);
  if (fy === 0) throw new PyException("ZeroDivisionError", "float modulo");
  let r = fx % fy;
  if (r !== 0 && r < 0 !== fy < 0) r += fy;
  else if (r === 0) r = fy < 0 ? -0 : 0;
  return r;
}

/** `a ** b`: int for non-negative int exponents, float otherwise. */
export function pyPow(a: PyValue, b: PyValue): Num {
  const [x, y] = operands("** or pow()", a, b);
  if (typeof x === "bigint" && typeof y === "bigint") {
    if (y >= 0n) {
      // The result has at least (bits of |x| - 1) * y bits. Python would grind on (and printing
      // it is quadratic); V8 takes seconds, then throws a RangeError past 2^30 bits.
      const magnitude = x < 0n ? -x : x;
      if (magnitude > 1n && BigInt(magnitude.toString(2).length - 1) * y > MAX_INT_POW_BITS) {
        throw new PyException(
          "OverflowError",
          `int power results above ${MAX_INT_POW_BITS} bits are not supported by this port`,
        );
      }
      return x ** y;
    }
    if (x === 0n)
      throw new PyException("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return toF(x) ** toF(y);
  }
  const fx = toF(x);
  const fy = toF(y);
  if (fx === 0 && fy < 0)
    throw new PyException("ZeroDivisionError", "0.0 cannot be raised to a negative power");
  if (fx < 0 && !Number.isInteger(fy))
    throw new PyException("ValueError", "complex results are not supported");
  // x*x is what C's pow returns for an exponent of 2; V8's pow can differ in the last bit.
  if (fy === 2) return fx * fx;
  return fx ** fy;
}

/** `-a`. */
export function pyNeg(a: PyValue): Num {
  const x = asNumber(a);
  if (x === undefined) throw typeError(`bad operand type for unary -: '${pyTypeName(a)}'`);
  return typeof x === "bigint" ? -x : -x;
}

/** `abs(a)`. */
export function pyAbs(a: PyValue): Num {
  const x = asNumber(a);
  if (x === undefined) throw typeError(`bad operand type for abs(): '${pyTypeName(a)}'`);
  if (typeof x === "bigint") return x < 0n ? -x : x;
  return Math.abs(x);
}

/** Compares by Unicode code point, as Python compares str. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

/** Three-way comparison for `<` and friends; NaN yields null (every comparison false). */
function compare(op: string, a: PyValue, b: PyValue): number | null {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) {
    if (Number.isNaN(x) || Number.isNaN(y)) return null;
    // JavaScript compares bigint with number by exact mathematical value.
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  const seqA = Array.isArray(a) ? a : a instanceof PyTuple ? a.items : undefined;
  const seqB = Array.isArray(b) ? b : b instanceof PyTuple ? b.items : undefined;
  if (seqA && seqB && Array.isArray(a) === Array.isArray(b)) {
    for (let i = 0; i < Math.min(seqA.length, seqB.length); i++) {
      const c = compare(op, seqA[i]!, seqB[i]!);
      if (c !== 0) return c;
    }
    return seqA.length - seqB.length;
  }
  throw typeError(
    `'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`,
  );
}

/** `a < b`. */
export function pyLt(a: PyValue, b: PyValue): boolean {
  const c = compare("<", a, b);
  return c !== null && c < 0;
}

/** `a <= b`. */
export function pyLe(a: PyValue, b: PyValue): boolean {
  const c = compare("<=", a, b);
  return c !== null && c <= 0;
}

/** `a > b`. */
export function pyGt(a: PyValue, b: PyValue): boolean {
  const c = compare(">", a, b);
  return c !== null && c > 0;
}

/** `a >= b`. */
export function pyGe(a: PyValue, b: PyValue): boolean {
  const c = compare(">=", a, b);
  return c !== null && c >= 0;
}

/** Python's `bool(v)`. */
export function truthy(v: PyValue): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case "boolean":
      return v;
    case "bigint":
      return v !== 0n;
    case "number":
      return v !== 0;
    case "string":
      return v.length > 0;
  }
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof Map || v instanceof Set) return v.size > 0;
  return true;
}

/** Python's `len(v)` (code points for str). */
export function pyLen(v: PyValue): bigint {
  if (typeof v === "string") {
    let n = 0;
    for (const _ of v) n++;
    return BigInt(n);
  }
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof PyTuple) return BigInt(v.items.length);
  if (v instanceof Map || v instanceof Set) return BigInt(v.size);
  throw typeError(`object of type '${pyTypeName(v)}' has no len()`);
}

/** Python's `float(v)` for numbers and numeric strings. */
export function pyFloat(v: PyValue): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return intToFloat(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") {
    const t = v.trim().replace(/_/g, "");
    const special = /^([+-]?)(inf|infinity|nan)$/i.exec(t);
    if (special)
      return special[2]!.toLowerCase() === "nan" ? NaN : special[1] === "-" ? -Infinity : Infinity;
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
    throw valueError(`could not convert string to float: ${pyRepr(v)}`);
  }
  throw typeError(`float() argument must be a string or a real number, not '${pyTypeName(v)}'`);
}

/** Python's `int(v)` for numbers and decimal strings (floats truncate toward zero). */
export function pyInt(v: PyValue): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "number") {
    if (Number.isNaN(v)) throw valueError("cannot convert float NaN to integer");
    if (!Number.isFinite(v))
      throw new PyException("OverflowError", "cannot convert float infinity to integer");
    return BigInt(Math.trunc(v));
  }
  if (typeof v === "string") {
    const t = v.trim().replace(/(?<=\d)_(?=\d)/g, "");
    if (/^[+-]?\d+$/.test(t)) return BigInt(t);
    throw valueError(`invalid literal for int() with base 10: ${pyRepr(v)}`);
  }
  throw typeError(
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`,
  );
}
