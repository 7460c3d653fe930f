/**
 * @module eval/suites/math/symbolic
 * Equality of two single LaTeX expressions through the Cortex Compute Engine: it parses the LaTeX
 * (fractions, roots, pi, trig, complex numbers, mixed numbers) and evaluates it; expressions with
 * variables are compared at fixed sample points, so `(x+1)^2` equals `x^2+2x+1`.
 */
import { ComputeEngine, type Expression } from "@cortex-js/compute-engine";

/**
 * Why the Compute Engine: it is the maintained library that reads LaTeX itself (mathjs has no
 * LaTeX parser), MIT licensed. Version 0.140.0 declares Node >= 22.3 but uses no API missing from
 * Node 20 (checked: no Set methods, Promise.withResolvers or Object.groupBy in its bundle); the
 * unit tests and the perturbation self-check, which parse and evaluate every GSM8K and MATH-500
 * reference, run on Node 20.
 */
let engine: ComputeEngine | undefined;

function ce(): ComputeEngine {
  engine ??= new ComputeEngine();
  return engine;
}

/** Relative tolerance for values computed in floating point (`\sqrt{8}` vs `2\sqrt{2}`). */
export const RELATIVE_TOLERANCE = 1e-10;

/** Values substituted for variables, one point per row; irrational-looking to avoid coincidences. */
const SAMPLE_VALUES = [
  0.5377, 1.8339, -2.2588, 0.8622, 0.3188, -1.3077, -0.4336, 0.3426, 3.5784, 2.7694, -1.3499,
  3.0349,
];
const SAMPLE_POINTS = 4;

interface Complex {
  re: number;
  im: number;
}

function close(x: number, y: number): boolean {
  if (x === y) return true; // also equal infinities
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  const diff = Math.abs(x - y);
  return diff <= 1e-12 || diff <= RELATIVE_TOLERANCE * Math.max(Math.abs(x), Math.abs(y));
}

function closeComplex(a: Complex, b: Complex): boolean {
  return close(a.re, b.re) && close(a.im, b.im);
}

const PLAIN_NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)$/;

/** A plain decimal numeral in canonical form (`+007.50` -> `7.5`), compared exactly, not in floats. */
function canonicalNumeral(s: string): string {
  let t = s.startsWith("+") ? s.slice(1) : s;
  const negative = t.startsWith("-");
  if (negative) t = t.slice(1);
  let [whole = "", frac = ""] = t.split(".");
  whole = whole.replace(/^0+(?=\d)/, "") || "0";
  frac = frac.replace(/0+$/, "");
  const body = frac === "" ? whole : `${whole}.${frac}`;
  return negative && body !== "0" ? `-${body}` : body;
}

/** Answers longer than this are compared as text only: no reference comes near it. */
export const MAX_ANSWER_CHARS = 1000;

/** Wall-clock budget of one numeric evaluation (the engine checks it cooperatively). */
export const EVALUATION_TIME_LIMIT_MS = 250;

/** Heads whose evaluation is an unbounded search or loop: such answers are compared structurally. */
const UNBOUNDED_HEADS = new Set([
  "Sum",
  "Product",
  "Integrate",
  "Limit",
  "D",
  "Derivative",
  "ND",
  "NIntegrate",
  "Loop",
  "Block",
  "Function",
  "Apply",
]);

/** Heads whose arguments, if huge, make the engine compute enormous exact integers it cannot interrupt. */
const GROWTH_HEADS = new Set([
  "Power",
  "Root",
  "Factorial",
  "Factorial2",
  "Binomial",
  "Choose",
  "Gamma",
  "Fibonacci",
  "Exp",
]);

/** Largest literal allowed in the argument of a growth head (`2^{1000}` is fine, `9^{9^{9^9}}` is not). */
const MAX_GROWTH_ARGUMENT = 1000;

function literalMagnitude(node: unknown): number | null {
  if (typeof node === "number") return Math.abs(node);
  if (
    typeof node === "object" &&
    node !== null &&
    !Array.isArray(node) &&
    typeof (node as { num?: unknown }).num === "string"
  ) {
    return Math.abs(Number((node as { num: string }).num));
  }
  return null;
}

/**
 * True when evaluating this MathJSON could run away: a search or loop head, or a growth head
 * (power, factorial...) with a literal beyond `MAX_GROWTH_ARGUMENT` in its non-base arguments.
 * Such answers are only compared by structure, so a hostile answer cannot hang the grader.
 */
export function unsafeToEvaluate(json: unknown, inGrowthArgument = false): boolean {
  const magnitude = literalMagnitude(json);
  if (magnitude !== null) return inGrowthArgument && !(magnitude <= MAX_GROWTH_ARGUMENT);
  if (!Array.isArray(json)) return false;
  const head = json[0];
  if (typeof head === "string" && UNBOUNDED_HEADS.has(head)) return true;
  const growth = typeof head === "string" && GROWTH_HEADS.has(head);
  return json
    .slice(1)
    .some((arg, i) =>
      unsafeToEvaluate(
        arg,
        inGrowthArgument || (growth && (head !== "Power" && head !== "Root" ? true : i > 0)),
      ),
    );
}

interface Parsed {
  expr: Expression;
  unknowns: string[];
  /** Evaluation is allowed (see `unsafeToEvaluate`). */
  evaluable: boolean;
}

function parse(latex: string): Parsed | null {
  const expr = ce().parse(latex);
  if (!expr.isValid) return null;
  return { expr, unknowns: [...expr.unknowns].sort(), evaluable: !unsafeToEvaluate(expr.json) };
}

function numericValue(expr: Expression): Complex {
  const n = ce().withTimeLimit(EVALUATION_TIME_LIMIT_MS, () => expr.N());
  return { re: n.re, im: n.im };
}

/** Values of `p` at the sample points (one entry per point; NaN where undefined). */
function sampleValues(p: Parsed, unknowns: readonly string[]): Complex[] {
  if (unknowns.length === 0) return [numericValue(p.expr)];
  const out: Complex[] = [];
  for (let point = 0; point < SAMPLE_POINTS; point++) {
    const subs: Record<string, number> = {};
    unknowns.forEach((name, i) => {
      subs[name] = SAMPLE_VALUES[(point * 5 + i * 7) % SAMPLE_VALUES.length] ?? 1;
    });
    out.push(numericValue(p.expr.subs(subs)));
  }
  return out;
}

function defined(v: Complex): boolean {
  return !Number.isNaN(v.re) && !Number.isNaN(v.im);
}

/**
 * Runs a comparison in a fresh scope, so symbols declared while parsing one answer never leak
 * into the next. Any engine failure (a time limit, an internal error on odd input) means "not
 * shown equal": grading a model's answer must never throw.
 */
function scoped(fn: () => boolean): boolean {
  const engine = ce();
  engine.pushScope();
  try {
    return fn();
  } catch {
    return false;
  } finally {
    engine.popScope();
  }
}

/**
 * True when two single expressions denote the same value (or the same function of the same
 * variables). Plain numerals compare exactly; everything else numerically with
 * `RELATIVE_TOLERANCE`. Expressions that do not parse are equal only when their text is.
 */
export function expressionsEqual(a: string, b: string): boolean {
  const ta = a.replace(/\s+/g, "");
  const tb = b.replace(/\s+/g, "");
  if (ta === tb) return true;
  if (PLAIN_NUMBER.test(ta) && PLAIN_NUMBER.test(tb))
    return canonicalNumeral(ta) === canonicalNumeral(tb);
  if (ta.length > MAX_ANSWER_CHARS || tb.length > MAX_ANSWER_CHARS) return false;
  return scoped(() => {
    const pa = parse(a);
    const pb = parse(b);
    if (!pa || !pb) return false;
    if (pa.unknowns.join(",") !== pb.unknowns.join(",")) return false;
    if (!pa.evaluable || !pb.evaluable)
      return JSON.stringify(pa.expr.json) === JSON.stringify(pb.expr.json);
    const va = sampleValues(pa, pa.unknowns);
    const vb = sampleValues(pb, pb.unknowns);
    let compared = 0;
    for (let i = 0; i < va.length; i++) {
      const x = va[i] as Complex;
      const y = vb[i] as Complex;
      if (defined(x) !== defined(y)) return false;
      if (!defined(x)) continue;
      if (!closeComplex(x, y)) return false;
      compared++;
    }
    // Nothing numeric to compare (e.g. a string or a set the engine kept symbolic): same structure only.
    if (compared === 0) return JSON.stringify(pa.expr.json) === JSON.stringify(pb.expr.json);
    return true;
  });
}

/**
 * True when two expressions are non-zero constant multiples of each other: the test for two
 * equations `l1 = r1` and `l2 = r2` describing the same relation, applied to `l - r`.
 */
export function expressionsProportional(a: string, b: string): boolean {
  if (a.length > MAX_ANSWER_CHARS || b.length > MAX_ANSWER_CHARS) return false;
  return scoped(() => {
    const pa = parse(a);
    const pb = parse(b);
    if (!pa || !pb || !pa.evaluable || !pb.evaluable) return false;
    const unknowns = [...new Set([...pa.unknowns, ...pb.unknowns])].sort();
    const va = sampleValues(pa, unknowns);
    const vb = sampleValues(pb, unknowns);
    let ratio: Complex | null = null;
    for (let i = 0; i < va.length; i++) {
      const x = va[i] as Complex;
      const y = vb[i] as Complex;
      if (!defined(x) || !defined(y)) continue;
      const xZero = close(x.re, 0) && close(x.im, 0);
      const yZero = close(y.re, 0) && close(y.im, 0);
      if (xZero || yZero) {
        if (xZero !== yZero) return false;
        continue;
      }
      const denom = y.re * y.re + y.im * y.im;
      const r = {
        re: (x.re * y.re + x.im * y.im) / denom,
        im: (x.im * y.re - x.re * y.im) / denom,
      };
      if (ratio === null) ratio = r;
      else if (!closeComplex(ratio, r)) return false;
    }
    return ratio !== null;
  });
}
