/**
 * @module eval/suites/math/equivalence
 * Whether a model's final answer equals the reference: both are cleaned, parsed into their shape,
 * and compared shape by shape, with the Compute Engine deciding equality of single expressions.
 */
import { cleanAnswer, textKey } from "./normalize.js";
import { isSymbol, parseAnswer, type AnswerNode } from "./structure.js";
import { expressionsEqual, expressionsProportional, MAX_ANSWER_CHARS } from "./symbolic.js";

/** Unordered comparison: every item of `a` pairs with a distinct equal item of `b`. */
function sameMultiset(a: readonly AnswerNode[], b: readonly AnswerNode[]): boolean {
  if (a.length !== b.length) return false;
  const used = new Array<boolean>(b.length).fill(false);
  for (const x of a) {
    const j = b.findIndex((y, k) => !used[k] && nodesEqual(x, y));
    if (j === -1) return false;
    used[j] = true;
  }
  return true;
}

function sameSequence(a: readonly AnswerNode[], b: readonly AnswerNode[]): boolean {
  return a.length === b.length && a.every((x, i) => nodesEqual(x, b[i] as AnswerNode));
}

function equationsEqual(
  a: Extract<AnswerNode, { kind: "equation" }>,
  b: Extract<AnswerNode, { kind: "equation" }>,
): boolean {
  if (isSymbol(a.lhs) && isSymbol(b.lhs)) return a.lhs === b.lhs && expressionsEqual(a.rhs, b.rhs);
  return expressionsProportional(`(${a.lhs})-(${a.rhs})`, `(${b.lhs})-(${b.rhs})`);
}

/**
 * Shape-aware equality:
 * - words compare by `textKey` (case, spaces and `(C)` vs `C` ignored) against any shape;
 * - `x = 3` equals `3` (a single variable on the left is a label); two equations are equal when
 *   the same variable is defined as equal values, or when `l - r` are proportional;
 * - tuples and intervals are ordered and keep their brackets (`[1,2)` is not `(1,2)`);
 * - bare lists (`1, -2`), sets (`\{...\}`) and `a \pm b` are unordered; a bare list also equals a
 *   parenthesised tuple with the same items in the same order;
 * - unions compare their parts unordered; matrices cell by cell;
 * - a number in a base (`52_8`) equals the same digits with or without the subscript, never its
 *   decimal value.
 */
export function nodesEqual(a: AnswerNode, b: AnswerNode): boolean {
  if (a.kind === "text" || b.kind === "text") return textKey(a.raw) === textKey(b.raw);
  if (a.kind === "equation" && b.kind === "equation") return equationsEqual(a, b);
  if (a.kind === "equation")
    return isSymbol(a.lhs) && nodesEqual(parseAnswer(cleanAnswer(a.rhs)), b);
  if (b.kind === "equation")
    return isSymbol(b.lhs) && nodesEqual(a, parseAnswer(cleanAnswer(b.rhs)));
  if (a.kind === "base" || b.kind === "base") {
    const digits = (n: AnswerNode) =>
      n.kind === "base" ? n.digits : n.raw.replace(/\s+/g, "").toLowerCase();
    const sameBase = a.kind !== "base" || b.kind !== "base" || a.base === b.base;
    return sameBase && digits(a) === digits(b);
  }
  switch (a.kind) {
    case "expr":
      return b.kind === "expr" && expressionsEqual(a.raw, b.raw);
    case "seq":
      if (b.kind === "seq")
        return a.open === b.open && a.close === b.close && sameSequence(a.items, b.items);
      return (
        b.kind === "bag" &&
        b.origin === "bare" &&
        a.open === "(" &&
        a.close === ")" &&
        sameSequence(a.items, b.items)
      );
    case "bag":
      if (b.kind === "bag") return sameMultiset(a.items, b.items);
      return b.kind === "seq" && nodesEqual(b, a);
    case "union":
      return b.kind === "union" && sameMultiset(a.parts, b.parts);
    case "matrix":
      return (
        b.kind === "matrix" &&
        a.rows.length === b.rows.length &&
        a.rows.every((row, i) => sameSequence(row, b.rows[i] as AnswerNode[]))
      );
  }
}

/** True when the model's answer (`given`, e.g. the content of `\boxed{}`) equals `reference`. */
export function mathAnswersEqual(given: string, reference: string): boolean {
  if (given.length > MAX_ANSWER_CHARS)
    return cleanAnswer(given).latex === cleanAnswer(reference).latex;
  const g = parseAnswer(cleanAnswer(given));
  const r = parseAnswer(cleanAnswer(reference));
  return nodesEqual(g, r);
}
