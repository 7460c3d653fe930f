/**
 * @module config/fields
 * The kinds of value a configuration key takes, read alike from a flag's text and a config file
 * (bounded integers that say why the bound is there, seconds, on/off words, comma-separated
 * lists), and `field`, which gives one its default and its documentation.
 */
import { z } from "zod";

/** An integer in [min, max]; `max` bounds what fits in memory and time, and `why` says so in the error. */
export const int = (min: number, max: number, why: string) =>
  z.coerce
    .number()
    .int()
    .min(min)
    .max(max, `at most ${max.toLocaleString("en-US")} (${why})`);
/** Seconds in (0, max]. */
export const seconds = (max: number) =>
  z.coerce
    .number()
    .finite()
    .positive()
    .max(max, `at most ${max.toLocaleString("en-US")} s`);
/** A finite number. */
export const num = z.coerce.number().finite();
/** Tokens of one completion. */
export const tokenCount = int(1, 1_048_576, "no model has a longer context");
/** Steps between two events of a run. */
export const stepCount = int(1, 10_000, "longer than any run");
/** A switch written as a word (`--memory off`). */
export const onOff = z.enum(["on", "off"]);
/** A boolean; a flag's text gives it as the word `true` or `false`. */
export const bool = z.preprocess(
  (v) => (v === "true" ? true : v === "false" ? false : v),
  z.boolean(),
);
/** A non-empty list of names; a flag's text gives it comma-separated (`--skills a,b`). */
export const list = z.preprocess(
  (v) =>
    typeof v === "string"
      ? v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  z.array(z.string().min(1)).min(1),
);

/**
 * One field: `schema`, its default when the key is not given, and its documentation (the flag's
 * help and its row in docs/configuration.md are generated from `doc`).
 */
export const field = <S extends z.ZodType>(
  schema: S,
  fallback: z.util.NoUndefined<z.output<S>>,
  doc: string,
) => schema.default(fallback).describe(doc);
