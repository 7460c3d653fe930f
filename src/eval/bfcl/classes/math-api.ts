/**
 * @module eval/bfcl/classes/math-api
 * Port of upstream's stateless `MathAPI` (math_api.py). Each method catches the same Python
 * exceptions upstream catches and turns them into `{"error": ...}`; `logarithm` returns an
 * mpmath `mpf` and `square_root` a `Decimal`, so their results print through `str(dict)`.
 */
import * as py from "../../python/index.js";
import type { PyValue } from "../../python/index.js";
import { type Args, type BfclApi, methodTable, opt, type ParamSpec, req } from "../api.js";
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
    if (err instanceof py.PyException && types.includes(err.pyType))
      return py.pyDict({ error: message });
    throw err;
  }
}

/** Python's `sum(iterable)` (3.10: exact ints, then plain float additions). */
function pySum(items: PyValue): PyValue {
  let total: PyValue = 0n;
  for (const x of py.iterate(items)) total = py.pyAdd(total, x);
  return total;
}

/** `isinstance(v, (int, float))` (bool counts as int). */
function isReal(v: PyValue): boolean {
  return py.asNumber(v) !== undefined;
}

/** Python's `min` / `max` over an iterable: the first extreme element. */
function extreme(
  items: PyValue,
  better: (a: PyValue, b: PyValue) => boolean,
  name: string,
): PyValue {
  const all = py.iterate(items);
  if (all.length === 0) throw py.valueError(`${name}() arg is an empty sequence`);
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

/**
 * A row of upstream's methods over a list `numbers` (mean, standard deviation, min, max, sum):
 * `{"error": "Cannot <what> of an empty list"}` for an empty list, NUMBERS_ERROR when an element
 * is not a number, else `{"result": result(numbers)}`.
 */
function listMethod(
  name: string,
  what: string,
  result: (numbers: PyValue) => PyValue,
): [string, ParamSpec[], (a: Args) => PyValue] {
  return [
    name,
    [req("numbers")],
    ({ numbers }) => {
      if (!py.truthy(numbers!)) return py.pyDict({ error: `Cannot ${what} of an empty list` });
      return catching(["TypeError"], NUMBERS_ERROR, () => py.pyDict({ result: result(numbers!) }));
    },
  ];
}

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
          const dps = Number(py.pyInt(precision!));
          if (dps > MAX_DIGITS)
            return py.pyDict({
              error: `precision above ${MAX_DIGITS} digits is not supported by this port`,
            });
          const prec = dpsToPrec(dps);
          const convert = (v: PyValue): Mpf => {
            const n = py.asNumber(v);
            if (n !== undefined) return mpfFromNumber(n, prec);
            const parsed = typeof v === "string" ? mpfFromDecimalString(v, prec) : undefined;
            if (parsed === undefined) throw py.typeError(`cannot create mpf from ${py.pyRepr(v)}`);
            return parsed;
          };
          const result = mpLogRatio(convert(value!), convert(base!), prec);
          if (result === "zero-division") return py.pyDict({ error: "" });
          if (result === "complex")
            return py.pyDict({ error: "complex logarithms are not supported by this port" });
          return py.pyDict({ result });
        } catch (err) {
          if (err instanceof py.PyException) return py.pyDict({ error: err.message });
          throw err;
        }
      },
    ],
    listMethod("mean", "calculate mean", (numbers) =>
      py.pyTrueDiv(pySum(numbers), py.pyLen(numbers)),
    ),
    listMethod("standard_deviation", "calculate standard deviation", (numbers) => {
      const n = py.pyLen(numbers);
      const mean = py.pyTrueDiv(pySum(numbers), n);
      const squares = py.iterate(numbers).map((x) => py.pyPow(py.pySub(x, mean), 2n));
      return Math.sqrt(py.pyTrueDiv(pySum(squares), n));
    }),
    [
      "si_unit_conversion",
      [req("value"), req("unit_in"), req("unit_out")],
      ({ value, unit_in, unit_out }) => {
        if (!isReal(value!)) return py.pyDict({ error: "Value must be a number" });
        const toMeters = TO_METERS.find(([u]) => py.pyEquals(u, unit_in!));
        const out = TO_METERS.find(([u]) => py.pyEquals(u, unit_out!));
        if (!toMeters || !out) {
          return py.pyDict({
            error: `Conversion from '${String(unit_in)}' to '${String(unit_out)}' is not supported`,
          });
        }
        const fromMeters = py.pyTrueDiv(1n, out[1]);
        return py.pyDict({ result: py.pyMul(py.pyMul(value!, toMeters[1]), fromMeters) });
      },
    ],
    [
      "imperial_si_conversion",
      [req("value"), req("unit_in"), req("unit_out")],
      ({ value, unit_in, unit_out }) => {
        if (!isReal(value!)) return py.pyDict({ error: "Value must be a number" });
        if (py.pyEquals(unit_in!, unit_out!)) return py.pyDict({ result: value! });
        const key = `${String(unit_in)}_to_${String(unit_out)}`;
        if (!Object.hasOwn(IMPERIAL, key))
          return py.pyDict({
            error: `Conversion from '${String(unit_in)}' to '${String(unit_out)}' is not supported`,
          });
        const factor = IMPERIAL[key]!;
        if (unit_in === "celsius" && unit_out === "fahrenheit")
          return py.pyDict({ result: py.pyAdd(py.pyMul(value!, factor), 32n) });
        if (unit_in === "fahrenheit" && unit_out === "celsius")
          return py.pyDict({ result: py.pyMul(py.pySub(value!, 32n), factor) });
        return py.pyDict({ result: py.pyMul(value!, factor) });
      },
    ],
    [
      "add",
      [req("a"), req("b")],
      ({ a, b }) =>
        catching(["TypeError"], BOTH_ERROR, () => py.pyDict({ result: py.pyAdd(a!, b!) })),
    ],
    [
      "subtract",
      [req("a"), req("b")],
      ({ a, b }) =>
        catching(["TypeError"], BOTH_ERROR, () => py.pyDict({ result: py.pySub(a!, b!) })),
    ],
    [
      "multiply",
      [req("a"), req("b")],
      ({ a, b }) => {
        if (!isReal(a!) || !isReal(b!)) return py.pyDict({ error: BOTH_ERROR });
        return py.pyDict({ result: py.pyMul(a!, b!) });
      },
    ],
    [
      "divide",
      [req("a"), req("b")],
      ({ a, b }) =>
        catching(["TypeError"], BOTH_ERROR, () => {
          if (py.pyEquals(b!, 0n)) return py.pyDict({ error: "Cannot divide by zero" });
          return py.pyDict({ result: py.pyTrueDiv(a!, b!) });
        }),
    ],
    [
      "power",
      [req("base"), req("exponent")],
      ({ base, exponent }) =>
        catching(["TypeError"], BOTH_ERROR, () =>
          py.pyDict({ result: py.pyPow(base!, exponent!) }),
        ),
    ],
    [
      "square_root",
      [req("number"), req("precision")],
      ({ number, precision }) =>
        catching(
          ["TypeError", "InvalidOperation"],
          "Input must be a number or computation resulted in an invalid operation",
          () => {
            if (py.pyLt(number!, 0n))
              return py.pyDict({ error: "Cannot calculate square root of a negative number" });
            if (typeof precision !== "bigint" && typeof precision !== "boolean") {
              throw py.typeError(
                `'${py.pyTypeName(precision!)}' object cannot be interpreted as an integer`,
              );
            }
            const digits = Number(py.pyInt(precision));
            if (digits < 1)
              throw new py.PyException("ValueError", "valid range for prec is [1, MAX_PREC]");
            if (digits > MAX_DIGITS)
              return py.pyDict({
                error: `precision above ${MAX_DIGITS} digits is not supported by this port`,
              });
            const n = py.asNumber(number!);
            if (n === undefined)
              throw py.typeError(
                `conversion from ${py.pyTypeName(number!)} to Decimal is not supported`,
              );
            return py.pyDict({ result: decimalSqrt(decimalFromNumber(n), digits) });
          },
        ),
    ],
    [
      "absolute_value",
      [req("number")],
      ({ number }) =>
        catching(["TypeError"], "Input must be a number", () =>
          py.pyDict({ result: py.pyAbs(number!) }),
        ),
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
              throw py.typeError(
                `'${py.pyTypeName(decimal_places!)}' object cannot be interpreted as an integer`,
              );
            }
            const places = Number(py.pyInt(decimal_places));
            if (typeof number === "number")
              return py.pyDict({ result: py.roundFloat(number, places) });
            if (typeof number === "bigint" || typeof number === "boolean")
              return py.pyDict({ result: py.roundInt(py.pyInt(number), places) });
            throw py.typeError(`type ${py.pyTypeName(number!)} doesn't define __round__ method`);
          },
        ),
    ],
    [
      "percentage",
      [req("part"), req("whole")],
      ({ part, whole }) =>
        catching(["TypeError"], BOTH_ERROR, () => {
          if (py.pyEquals(whole!, 0n)) return py.pyDict({ error: "Whole value cannot be zero" });
          return py.pyDict({ result: py.pyMul(py.pyTrueDiv(part!, whole!), 100n) });
        }),
    ],
    listMethod("min_value", "find minimum", (numbers) => extreme(numbers, py.pyLt, "min")),
    listMethod("max_value", "find maximum", (numbers) =>
      extreme(numbers, (a, b) => py.pyLt(b, a), "max"),
    ),
    listMethod("sum_values", "calculate sum", pySum),
  ]);
}
