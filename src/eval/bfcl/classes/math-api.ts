/**
 * @module eval/bfcl/classes/math-api
 * Port of upstream's stateless `MathAPI` (math_api.py). Each method catches the same Python
 * exceptions upstream catches and turns them into `{"error": ...}`; `logarithm` returns an
 * mpmath `mpf` and `square_root` a `Decimal`, so their results print through `str(dict)`.
 */
import {
  asNumber,
  iterate,
  pyAbs,
  pyAdd,
  pyDict,
  pyEquals,
  PyException,
  pyInt,
  pyLen,
  pyLt,
  pyMul,
  pyPow,
  pyRepr,
  pySub,
  pyTrueDiv,
  pyTypeName,
  type PyValue,
  roundFloat,
  roundInt,
  truthy,
  typeError,
  valueError,
} from "../../python/index.js";
import { methodTable, opt, req, type BfclApi } from "../api.js";
import { decimalFromNumber, decimalSqrt } from "./decimal-sqrt.js";
import {
  type Mpf,
  dpsToPrec,
  mpLogRatio,
  mpfFromDecimalString,
  mpfFromNumber,
} from "./math-numeric.js";

/** Largest precision (digits) computed; beyond it the port answers with an error instead of hanging. */
const MAX_DIGITS = 10000;

/** Runs `body`, turning the Python exception types upstream catches into `{"error": message}`. */
function catching(types: string[], message: string, body: () => PyValue): PyValue {
  try {
    return body();
  } catch (err) {
    if (err instanceof PyException && types.includes(err.pyType)) return pyDict({ error: message });
    throw err;
  }
}

/** Python's `sum(iterable)` (3.10: exact ints, then plain float additions). */
function pySum(items: PyValue): PyValue {
  let total: PyValue = 0n;
  for (const x of iterate(items)) total = pyAdd(total, x);
  return total;
}

/** `isinstance(v, (int, float))` (bool counts as int). */
function isReal(v: PyValue): boolean {
  return asNumber(v) !== undefined;
}

/** Python's `min` / `max` over an iterable: the first extreme element. */
function extreme(
  items: PyValue,
  better: (a: PyValue, b: PyValue) => boolean,
  name: string,
): PyValue {
  const all = iterate(items);
  if (all.length === 0) throw valueError(`${name}() arg is an empty sequence`);
  return all.reduce((best, x) => (better(x, best) ? x : best));
}

const TO_METERS: Array<[string, bigint | number]> = [
  ["km", 1000n],
  ["m", 1n],
  ["cm", 0.01],
  ["mm", 0.001],
  ["um", 1e-6],
  ["nm", 1e-9],
];

const IMPERIAL: Record<string, number> = {
  cm_to_in: 0.393701,
  in_to_cm: 2.54,
  m_to_ft: 3.28084,
  ft_to_m: 0.3048,
  m_to_yd: 1.09361,
  yd_to_m: 0.9144,
  km_to_miles: 0.621371,
  miles_to_km: 1.60934,
  kg_to_lb: 2.20462,
  lb_to_kg: 0.453592,
  celsius_to_fahrenheit: 1.8,
  fahrenheit_to_celsius: 5 / 9,
};

const NUMBERS_ERROR = "All elements in the list must be numbers";
const BOTH_ERROR = "Both inputs must be numbers";

/** Port of upstream's MathAPI. */
export class MathAPI implements BfclApi {
  readonly className = "MathAPI";

  loadScenario(): void {}

  publicState(): Array<[string, PyValue]> {
    return [];
  }

  readonly methods = methodTable([
    [
      "logarithm",
      [req("value"), req("base"), req("precision")],
      ({ value, base, precision }) => {
        try {
          const dps = Number(pyInt(precision!));
          if (dps > MAX_DIGITS)
            return pyDict({
              error: `precision above ${MAX_DIGITS} digits is not supported by this port`,
            });
          const prec = dpsToPrec(dps);
          const convert = (v: PyValue): Mpf => {
            const n = asNumber(v);
            if (n !== undefined) return mpfFromNumber(n, prec);
            const parsed = typeof v === "string" ? mpfFromDecimalString(v, prec) : undefined;
            if (parsed === undefined) throw typeError(`cannot create mpf from ${pyRepr(v)}`);
            return parsed;
          };
          const result = mpLogRatio(convert(value!), convert(base!), prec);
          if (result === "zero-division") return pyDict({ error: "" });
          if (result === "complex")
            return pyDict({ error: "complex logarithms are not supported by this port" });
          return pyDict({ result });
        } catch (err) {
          if (err instanceof PyException) return pyDict({ error: err.message });
          throw err;
        }
      },
    ],
    [
      "mean",
      [req("numbers")],
      ({ numbers }) => {
        if (!truthy(numbers!)) return pyDict({ error: "Cannot calculate mean of an empty list" });
        return catching(["TypeError"], NUMBERS_ERROR, () =>
          pyDict({ result: pyTrueDiv(pySum(numbers!), pyLen(numbers!)) }),
        );
      },
    ],
    [
      "standard_deviation",
      [req("numbers")],
      ({ numbers }) => {
        if (!truthy(numbers!))
          return pyDict({ error: "Cannot calculate standard deviation of an empty list" });
        return catching(["TypeError"], NUMBERS_ERROR, () => {
          const n = pyLen(numbers!);
          const mean = pyTrueDiv(pySum(numbers!), n);
          const squares = iterate(numbers!).map((x) => pyPow(pySub(x, mean), 2n));
          const variance = pyTrueDiv(pySum(squares), n);
          return pyDict({ result: Math.sqrt(variance) });
        });
      },
    ],
    [
      "si_unit_conversion",
      [req("value"), req("unit_in"), req("unit_out")],
      ({ value, unit_in, unit_out }) => {
        if (!isReal(value!)) return pyDict({ error: "Value must be a number" });
        const toMeters = TO_METERS.find(([u]) => pyEquals(u, unit_in!));
        const out = TO_METERS.find(([u]) => pyEquals(u, unit_out!));
        if (!toMeters || !out) {
          return pyDict({
            error: `Conversion from '${String(unit_in)}' to '${String(unit_out)}' is not supported`,
          });
        }
        const fromMeters = pyTrueDiv(1n, out[1]);
        return pyDict({ result: pyMul(pyMul(value!, toMeters[1]), fromMeters) });
      },
    ],
    [
      "imperial_si_conversion",
      [req("value"), req("unit_in"), req("unit_out")],
      ({ value, unit_in, unit_out }) => {
        if (!isReal(value!)) return pyDict({ error: "Value must be a number" });
        if (pyEquals(unit_in!, unit_out!)) return pyDict({ result: value! });
        const key = `${String(unit_in)}_to_${String(unit_out)}`;
        if (!Object.hasOwn(IMPERIAL, key))
          return pyDict({
            error: `Conversion from '${String(unit_in)}' to '${String(unit_out)}' is not supported`,
          });
        const factor = IMPERIAL[key]!;
        if (unit_in === "celsius" && unit_out === "fahrenheit")
          return pyDict({ result: pyAdd(pyMul(value!, factor), 32n) });
        if (unit_in === "fahrenheit" && unit_out === "celsius")
          return pyDict({ result: pyMul(pySub(value!, 32n), factor) });
        return pyDict({ result: pyMul(value!, factor) });
      },
    ],
    [
      "add",
      [req("a"), req("b")],
      ({ a, b }) => catching(["TypeError"], BOTH_ERROR, () => pyDict({ result: pyAdd(a!, b!) })),
    ],
    [
      "subtract",
      [req("a"), req("b")],
      ({ a, b }) => catching(["TypeError"], BOTH_ERROR, () => pyDict({ result: pySub(a!, b!) })),
    ],
    [
      "multiply",
      [req("a"), req("b")],
      ({ a, b }) => {
        if (!isReal(a!) || !isReal(b!)) return pyDict({ error: BOTH_ERROR });
        return pyDict({ result: pyMul(a!, b!) });
      },
    ],
    [
      "divide",
      [req("a"), req("b")],
      ({ a, b }) =>
        catching(["TypeError"], BOTH_ERROR, () => {
          if (pyEquals(b!, 0n)) return pyDict({ error: "Cannot divide by zero" });
          return pyDict({ result: pyTrueDiv(a!, b!) });
        }),
    ],
    [
      "power",
      [req("base"), req("exponent")],
      ({ base, exponent }) =>
        catching(["TypeError"], BOTH_ERROR, () => pyDict({ result: pyPow(base!, exponent!) })),
    ],
    [
      "square_root",
      [req("number"), req("precision")],
      ({ number, precision }) =>
        catching(
          ["TypeError", "InvalidOperation"],
          "Input must be a number or computation resulted in an invalid operation",
          () => {
            if (pyLt(number!, 0n))
              return pyDict({ error: "Cannot calculate square root of a negative number" });
            if (typeof precision !== "bigint" && typeof precision !== "boolean") {
              throw typeError(
                `'${pyTypeName(precision!)}' object cannot be interpreted as an integer`,
              );
            }
            const digits = Number(pyInt(precision));
            if (digits < 1)
              throw new PyException("ValueError", "valid range for prec is [1, MAX_PREC]");
            if (digits > MAX_DIGITS)
              return pyDict({
                error: `precision above ${MAX_DIGITS} digits is not supported by this port`,
              });
            const n = asNumber(number!);
            if (n === undefined)
              throw typeError(`conversion from ${pyTypeName(number!)} to Decimal is not supported`);
            return pyDict({ result: decimalSqrt(decimalFromNumber(n), digits) });
          },
        ),
    ],
    [
      "absolute_value",
      [req("number")],
      ({ number }) =>
        catching(["TypeError"], "Input must be a number", () => pyDict({ result: pyAbs(number!) })),
    ],
    [
      "round_number",
      [req("number"), opt("decimal_places", 0n)],
      ({ number, decimal_places }) =>
        catching(
          ["TypeError"],
          "First input must be a number, second input must be an integer",
          () => {
            if (typeof decimal_places !== "bigint" && typeof decimal_places !== "boolean") {
              throw typeError(
                `'${pyTypeName(decimal_places!)}' object cannot be interpreted as an integer`,
              );
            }
            const places = Number(pyInt(decimal_places));
            if (typeof number === "number") return pyDict({ result: roundFloat(number, places) });
            if (typeof number === "bigint" || typeof number === "boolean")
              return pyDict({ result: roundInt(pyInt(number), places) });
            throw typeError(`type ${pyTypeName(number!)} doesn't define __round__ method`);
          },
        ),
    ],
    [
      "percentage",
      [req("part"), req("whole")],
      ({ part, whole }) =>
        catching(["TypeError"], BOTH_ERROR, () => {
          if (pyEquals(whole!, 0n)) return pyDict({ error: "Whole value cannot be zero" });
          return pyDict({ result: pyMul(pyTrueDiv(part!, whole!), 100n) });
        }),
    ],
    [
      "min_value",
      [req("numbers")],
      ({ numbers }) => {
        if (!truthy(numbers!)) return pyDict({ error: "Cannot find minimum of an empty list" });
        return catching(["TypeError"], NUMBERS_ERROR, () =>
          pyDict({ result: extreme(numbers!, pyLt, "min") }),
        );
      },
    ],
    [
      "max_value",
      [req("numbers")],
      ({ numbers }) => {
        if (!truthy(numbers!)) return pyDict({ error: "Cannot find maximum of an empty list" });
        return catching(["TypeError"], NUMBERS_ERROR, () =>
          pyDict({ result: extreme(numbers!, (a, b) => pyLt(b, a), "max") }),
        );
      },
    ],
    [
      "sum_values",
      [req("numbers")],
      ({ numbers }) => {
        if (!truthy(numbers!)) return pyDict({ error: "Cannot calculate sum of an empty list" });
        return catching(["TypeError"], NUMBERS_ERROR, () => pyDict({ result: pySum(numbers!) }));
      },
    ],
  ]);
}
