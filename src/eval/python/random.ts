/**
 * @module eval/python/random
 * A bit-exact port of CPython's `random.Random` (MT19937 and the methods built on it), so that
 * ports of Python benchmark code draw the same values as the original from the same seed.
 */
import { SpadeError } from "../../errors.js";

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const TWO_32 = 4294967296;

/** Number of bits of a non-negative integer (Python's `int.bit_length`). */
function bitLength(n: number): number {
  let k = 0;
  while (n >= TWO_32) {
    n = Math.floor(n / TWO_32);
    k += 32;
  }
  return n === 0 ? k : k + 32 - Math.clz32(n);
}

/** Throws unless `n` is a safe integer: results beyond 2^53 would silently lose bits. */
function requireSafeInt(n: number, what: string): void {
  if (!Number.isSafeInteger(n)) {
    throw new SpadeError("E_CONFIG", `${what} must be a safe integer, got ${n}`, {
      nextStep: "pass integers within +-2^53 (use getrandbitsBig for larger ranges)",
    });
  }
}

/**
 * CPython's `random.Random`: a Mersenne Twister seeded the way `random.seed(int)` seeds it, and
 * the integer, float and sequence methods with CPython's exact call pattern on the generator.
 */
export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  /** Seeds like `random.Random(seed)` for an int seed (negative seeds use their absolute value). */
  constructor(seed: number | bigint) {
    this.seed(seed);
  }

  /** Re-seeds like `random.seed(int)`: init_by_array over the 32-bit words of abs(seed). */
  seed(seed: number | bigint): void {
    let big: bigint;
    if (typeof seed === "bigint") big = seed;
    else {
      requireSafeInt(seed, "seed");
      big = BigInt(seed);
    }
    if (big < 0n) big = -big;
    const key: number[] = [];
    while (big > 0n) {
      key.push(Number(big & 0xffffffffn));
      big >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      // 1812433253 * prev + i, modulo 2^32, without losing low bits to float rounding.
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.mti = N;
  }

  /** The next raw 32-bit output of MT19937 (CPython's `genrand_uint32`). */
  genrandUint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
      mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** A float in [0, 1) with 53 random bits, exactly as `random.random()`. */
  random(): number {
    const a = this.genrandUint32() >>> 5;
    const b = this.genrandUint32() >>> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  /** `random.getrandbits(k)` for arbitrary k, as a bigint. */
  getrandbitsBig(k: number): bigint {
    if (!Number.isInteger(k) || k < 0) {
      throw new SpadeError(
        "E_CONFIG",
        `getrandbits: number of bits must be a non-negative integer, got ${k}`,
      );
    }
    if (k === 0) return 0n;
    if (k <= 32) return BigInt(this.genrandUint32() >>> (32 - k));
    // Words are drawn least significant first; the last one keeps only its top bits.
    let result = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let r = this.genrandUint32();
      if (left < 32) r >>>= 32 - left;
      result |= BigInt(r) << shift;
      shift += 32n;
    }
    return result;
  }

  /** `random.getrandbits(k)` as a number; k must be at most 53. */
  getrandbits(k: number): number {
    if (k <= 32 && Number.isInteger(k) && k > 0) return this.genrandUint32() >>> (32 - k);
    if (k > 53) {
      throw new SpadeError("E_CONFIG", `getrandbits(${k}) does not fit a number`, {
        nextStep: "use getrandbitsBig",
      });
    }
    return Number(this.getrandbitsBig(k));
  }

  /** A uniform int in [0, n) by rejection sampling on `n.bit_length()` bits (`_randbelow`). */
  randbelow(n: number): number {
    requireSafeInt(n, "randbelow bound");
    if (n <= 0) throw new SpadeError("E_CONFIG", `randbelow bound must be positive, got ${n}`);
    const k = bitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `random.randrange(start, stop, step)`; with one argument, `randrange(stop)`. */
  randrange(start: number, stop?: number, step = 1): number {
    requireSafeInt(start, "randrange start");
    if (stop === undefined) {
      if (start > 0) return this.randbelow(start);
      throw new SpadeError("E_CONFIG", "empty range for randrange()");
    }
    requireSafeInt(stop, "randrange stop");
    requireSafeInt(step, "randrange step");
    const width = stop - start;
    if (step === 1) {
      if (width > 0) return start + this.randbelow(width);
      throw new SpadeError("E_CONFIG", `empty range for randrange() (${start}, ${stop}, ${width})`);
    }
    let n: number;
    if (step > 0) n = Math.floor((width + step - 1) / step);
    else if (step < 0) n = Math.floor((width + step + 1) / step);
    else throw new SpadeError("E_CONFIG", "zero step for randrange()");
    if (n <= 0) throw new SpadeError("E_CONFIG", "empty range for randrange()");
    return start + step * this.randbelow(n);
  }

  /** `random.randint(a, b)`: an int in [a, b], both ends included. */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** `random.uniform(a, b)`: `a + (b - a) * random()`. */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }

  /** `random.choice(seq)`. */
  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new SpadeError("E_CONFIG", "Cannot choose from an empty sequence");
    return seq[this.randbelow(seq.length)]!;
  }

  /** `random.shuffle(x)`: shuffles in place (Fisher-Yates from the end). */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i >= 1; i--) {
      const j = this.randbelow(i + 1);
      const tmp = x[i]!;
      x[i] = x[j]!;
      x[j] = tmp;
    }
  }

  /** `random.sample(population, k)`: k distinct positions, with CPython's pool/set switch. */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k) || k < 0 || k > n) {
      throw new SpadeError("E_CONFIG", "Sample larger than population or is negative");
    }
    const result: T[] = new Array<T>(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool = [...population];
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j]!;
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j]!;
      }
    }
    return result;
  }
}
