/**
 * @module eval/bfcl/single/testing-perturb
 * TEST DOUBLE: right and wrong decoded model outputs built from a single-turn entry's possible
 * answers, for the cross-check against upstream's checker. Never used by a user-facing command.
 */
import { type PyDict, pyEquals, type PyValue } from "../../python/index.js";
import { languageOf } from "./ast-checker.js";
import type { BfclSingleEntry } from "./data.js";
import { renderOutput } from "./render.js";

/** One generated output with its name. */
export interface SingleCase {
  name: string;
  output: PyValue[];
}

const first = (options: PyValue): PyValue | undefined =>
  Array.isArray(options) ? options.find((o) => !pyEquals(o, "")) : undefined;

/** A dict answer (`{key: [options]}`) or a list of them, resolved to one concrete value. */
function concrete(v: PyValue, pick: (options: PyValue[]) => PyValue | undefined): PyValue {
  if (v instanceof Map) {
    const out: PyDict = new Map();
    for (const [k, options] of v) {
      const x = Array.isArray(options) ? pick(options) : options;
      if (x !== undefined) out.set(k, concrete(x, pick));
    }
    return out;
  }
  if (Array.isArray(v) && v.some((x) => x instanceof Map)) return v.map((x) => concrete(x, pick));
  return v;
}

/** The ground-truth call: each parameter's first non-empty option; optional-only ones omitted. */
function goldCall(answer: PyDict, pick: (options: PyValue[]) => PyValue | undefined): PyDict {
  const [name, params] = [...answer.entries()][0]!;
  const args: PyDict = new Map();
  for (const [param, options] of params as PyDict) {
    const v = pick(options as PyValue[]);
    if (v !== undefined) args.set(param, concrete(v, pick));
  }
  return new Map([[name, args]]);
}

/** A value of the same shape that no possible answer holds (most of the time). */
function changed(v: PyValue): PyValue {
  if (typeof v === "string") return `${v} zzq`;
  if (typeof v === "bigint") return v + 7n;
  if (typeof v === "number") return v + 0.5;
  if (typeof v === "boolean") return !v;
  if (Array.isArray(v)) return v.length > 0 ? v.slice(0, -1) : ["zzq"];
  if (v instanceof Map) return new Map([...v, ["zzq_key", "zzq"]]);
  return "zzq";
}

/** A value of another Python type. */
function retyped(v: PyValue): PyValue {
  if (typeof v === "string") return 0n;
  if (typeof v === "bigint") return String(v);
  if (typeof v === "number") return String(v);
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (Array.isArray(v)) return String(v.length);
  return "zzq";
}

function mapFirstParam(
  call: PyDict,
  f: (args: PyDict, key: PyValue, value: PyValue) => void,
  index = 0,
): PyDict {
  const [name, args] = [...call.entries()][0]!;
  const copy = new Map(args as PyDict);
  const entry = [...copy.entries()][index];
  if (entry) f(copy, entry[0], entry[1]);
  return new Map([[name, copy]]);
}

/** Every case for one entry: the gold output, alternatives upstream accepts, and wrong outputs. */
export function singleCases(entry: BfclSingleEntry): SingleCase[] {
  if (entry.groundTruth === null) {
    const call = new Map([[entry.functions[0]?.name ?? "zzq_fn", new Map()]]) as PyDict;
    return [
      { name: "no_call", output: [] },
      { name: "empty_call", output: [new Map()] },
      { name: "one_call", output: [call] },
    ];
  }
  const gold = entry.groundTruth.map((a) => goldCall(a, (o) => first(o)));
  const lastOption = entry.groundTruth.map((a) =>
    goldCall(a, (o) => [...o].reverse().find((x) => !pyEquals(x, ""))),
  );
  const withOptional = entry.groundTruth.map((a) =>
    goldCall(a, (o) =>
      o.length > 1 && pyEquals(o[0]!, "") ? o[1] : o[0] === "" ? undefined : o[0],
    ),
  );
  const styled = gold.map((c) =>
    mapFirstParam(c, (args, k, v) => {
      if (typeof v === "string") args.set(k as string, `${v.toUpperCase()} ._-^*/`);
      else if (typeof v === "bigint") args.set(k as string, Number(v));
    }),
  );
  const firstDoc = entry.functions[0]!;
  const lang = languageOf(entry.category);
  const cases: SingleCase[] = [
    { name: "gold", output: gold },
    { name: "last_option", output: lastOption },
    { name: "with_optional", output: withOptional },
    { name: "styled", output: styled },
    { name: "reversed", output: [...gold].reverse() },
    { name: "none", output: [] },
    { name: "extra_call", output: [...gold, gold[0]!] },
    {
      name: "wrong_name",
      output: gold.map((c) => new Map([[`${[...c.keys()][0]}_zzq`, [...c.values()][0]!]])),
    },
    {
      name: "drop_param",
      output: gold.map((c) => mapFirstParam(c, (args, k) => args.delete(k as string))),
    },
    {
      name: "changed_value",
      output: gold.map((c) => mapFirstParam(c, (args, k, v) => args.set(k as string, changed(v)))),
    },
    {
      name: "retyped_value",
      output: gold.map((c) => mapFirstParam(c, (args, k, v) => args.set(k as string, retyped(v)))),
    },
    {
      name: "extra_param",
      output: gold.map((c) => mapFirstParam(c, (args) => args.set("zzq_param", 1n))),
    },
    { name: "other_function", output: [new Map([[firstDoc.name, new Map()]])] },
  ];
  if (lang === "python") return cases;
  // Java and JavaScript arguments are source strings; "raw_value" keeps one unwritten (not a string).
  const rendered = cases.map((c) => ({
    name: c.name,
    output: renderOutput(c.output, entry.functions, lang),
  }));
  const renderedGold = rendered[0]!.output as PyDict[];
  return [
    ...rendered,
    { name: "raw_value", output: gold },
    // Each argument in turn as unparseable text, and quoted.
    ...[0, 1, 2, 3].flatMap((i) => [
      {
        name: `text_value_${i}`,
        output: renderedGold.map((c) =>
          mapFirstParam(c, (args, k) => args.set(k as string, "zzq"), i),
        ),
      },
      {
        name: `quoted_value_${i}`,
        output: renderedGold.map((c) =>
          mapFirstParam(c, (args, k, v) => args.set(k as string, `"${String(v)}"`), i),
        ),
      },
    ]),
  ];
}
