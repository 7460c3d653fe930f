/**
 * @module eval/bfcl/classes/datetime
 * Python's `datetime.strptime` for the formats the BFCL classes use (`%Y-%m-%d`, optionally
 * with `%H:%M:%S`): the same accepted forms and the same ValueError messages. Times are naive,
 * returned as UTC milliseconds of the wall-clock value.
 */
import {
  PyException,
  pyRepr,
  pyTypeName,
  type PyValue,
  typeError,
  valueError,
} from "../../python/index.js";

// The regexes CPython's _strptime uses for each directive.
const DIRECTIVES: Record<string, string> = {
  "%Y": "(\\d\\d\\d\\d)",
  "%m": "(1[0-2]|0[1-9]|[1-9])",
  "%d": "(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])",
  "%H": "(2[0-3]|[0-1]\\d|\\d)",
  "%M": "([0-5]\\d|\\d)",
  "%S": "(6[0-1]|[0-5]\\d|\\d)",
};

const compiled = new Map<string, { re: RegExp; order: string[] }>();

function compile(format: string): { re: RegExp; order: string[] } {
  let hit = compiled.get(format);
  if (hit) return hit;
  const order: string[] = [];
  const source = format.replace(/%[YmdHMS]|\s+|[^%\s]+/g, (token) => {
    if (token in DIRECTIVES) {
      order.push(token);
      return DIRECTIVES[token]!;
    }
    if (/^\s+$/.test(token)) return "\\s+";
    return token.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
  });
  hit = { re: new RegExp(`^${source}`, "i"), order };
  compiled.set(format, hit);
  return hit;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `datetime.strptime(value, format)` as milliseconds (naive time read as UTC). */
export function parseDateTime(value: PyValue, format: string): number {
  if (typeof value !== "string")
    throw typeError(`strptime() argument 1 must be str, not ${pyTypeName(value)}`);
  const { re, order } = compile(format);
  const m = re.exec(value);
  if (!m) throw valueError(`time data ${pyRepr(value)} does not match format ${pyRepr(format)}`);
  if (m[0].length !== value.length)
    throw valueError(`unconverted data remains: ${value.slice(m[0].length)}`);
  const parts: Record<string, number> = { "%Y": 1900, "%m": 1, "%d": 1, "%H": 0, "%M": 0, "%S": 0 };
  order.forEach((directive, i) => {
    parts[directive] = Number(m[i + 1]!.trim());
  });
  const year = parts["%Y"]!;
  const month = parts["%m"]!;
  const day = parts["%d"]!;
  if (year < 1) throw valueError(`year ${year} is out of range`);
  if (day > daysInMonth(year, month)) throw valueError("day is out of range for month");
  if (parts["%S"]! > 59) throw new PyException("ValueError", "second must be in 0..59");
  const ms = Date.UTC(year, month - 1, day, parts["%H"], parts["%M"], parts["%S"]);
  // Date.UTC maps years 0-99 to 1900-1999; set the year explicitly.
  const d = new Date(ms);
  d.setUTCFullYear(year);
  return d.getTime();
}
