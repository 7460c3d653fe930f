/**
 * @module eval/suites/math/perturb
 * Wrong answers made from right ones, for the grader's self-check: +1 on a number, a flipped
 * sign, a dropped term or list item, a changed letter. A sound grader scores every one of them 0.
 */
import { cleanAnswer } from "./normalize.js";
import { splitTopLevel } from "./structure.js";

/** The kinds of perturbation. */
export const PERTURBATIONS = ["increment", "negate", "drop", "letter"] as const;

/** One kind of perturbation. */
export type PerturbationKind = (typeof PERTURBATIONS)[number];

/** `increment`: the first digit run of the answer plus one (`\frac{1}{2}` -> `\frac{2}{2}`). */
function increment(answer: string): string | null {
  const m = /\d+/.exec(answer);
  if (!m) return null;
  const bumped = (BigInt(m[0]) + 1n).toString().padStart(m[0].length, "0");
  return answer.slice(0, m.index) + bumped + answer.slice(m.index + m[0].length);
}

/** `negate`: the sign of the first number flips; an answer without digits gets a leading minus. */
function negate(answer: string, isText: boolean): string | null {
  if (isText) return null;
  const m = /\d+(?:\.\d+)?/.exec(answer);
  if (!m) return `-${answer}`;
  if (Number(m[0]) === 0) return null; // -0 is 0: no sign to flip
  const before = answer.slice(0, m.index);
  if (before.endsWith("-")) return before.slice(0, -1) + answer.slice(m.index);
  return `${before}-${answer.slice(m.index)}`;
}

/**
 * Splits a single expression into its top-level terms at binary `+` and `-` (a sign after an
 * operator or at the start is unary and stays with its term). Brackets and commands are skipped.
 */
export function topLevelTerms(expr: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let prev = ""; // last non-space character seen at any depth
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i] ?? "";
    if (ch === "\\") {
      const next = expr[i + 1] ?? "";
      if (next !== "" && "{([".includes(next)) depth++;
      else if (next !== "" && "})]".includes(next)) depth--;
      let j = i + 1;
      while (j < expr.length && /[a-zA-Z]/.test(expr[j] ?? "")) j++;
      // A sign right after `\cdot`, `\times`... is unary, as after `*`.
      prev = /^(cdot|times|div|pm|mp)$/.test(expr.slice(i + 1, j)) ? "*" : "a";
      i = Math.max(i + 1, j - 1);
      continue;
    }
    if ("{([".includes(ch)) depth++;
    else if ("})]".includes(ch)) depth--;
    else if (
      depth === 0 &&
      (ch === "+" || ch === "-") &&
      prev !== "" &&
      !"^_+-*/=,".includes(prev)
    ) {
      out.push(expr.slice(start, i));
      start = i;
    }
    if (ch.trim() !== "") prev = ch;
  }
  out.push(expr.slice(start));
  return out.filter((t) => t.trim() !== "");
}

/** `drop`: the last row of a matrix, part of a union, item of a list, tuple or set, or term of a sum. */
function drop(answer: string, isText: boolean): string | null {
  if (isText) return null;
  const s = cleanAnswer(answer).latex;
  const matrix = /^(\\begin\{[a-zA-Z]*matrix\})([\s\S]*)(\\end\{[a-zA-Z]*matrix\})$/.exec(s);
  if (matrix) {
    const rows = splitTopLevel(matrix[2] ?? "", "\\\\").filter((row) => row.trim() !== "");
    return rows.length > 1 ? `${matrix[1]}${rows.slice(0, -1).join("\\\\")}${matrix[3]}` : null;
  }
  const unionParts = splitTopLevel(s, "\\cup");
  if (unionParts.length > 1) return unionParts.slice(0, -1).join("\\cup").trim();
  const open = s.startsWith("\\{") ? "\\{" : s[0] === "(" || s[0] === "[" ? s[0] : "";
  const close =
    open === "\\{" ? "\\}" : open !== "" && /[)\]]$/.test(s) ? (s[s.length - 1] ?? "") : "";
  const inner =
    open && close && s.endsWith(close) ? s.slice(open.length, s.length - close.length) : s;
  const items = splitTopLevel(open && close ? inner : s, ",");
  if (items.length > 1) {
    const kept = items.slice(0, -1).join(",");
    return open && close ? `${open}${kept}${close}` : kept;
  }
  const pm = /\\(?:pm|mp)(?![a-zA-Z])/.exec(s);
  if (pm) return s.slice(0, pm.index).trim();
  const parts = topLevelTerms(s);
  if (parts.length > 1) return parts.slice(0, -1).join("").trim();
  return null;
}

/** `letter`: for answers without digits, the first letter outside a command moves one on (`even` -> `fven`). */
function letter(answer: string): string | null {
  if (/\d/.test(answer)) return null;
  const re = /\\[a-zA-Z]+|[a-zA-Z]/g;
  for (let m = re.exec(answer); m !== null; m = re.exec(answer)) {
    if (m[0].startsWith("\\")) continue;
    const c = m[0];
    const next = c === "z" ? "a" : c === "Z" ? "A" : String.fromCharCode(c.charCodeAt(0) + 1);
    return answer.slice(0, m.index) + next + answer.slice(m.index + 1);
  }
  return null;
}

/** Each kind's perturbation (`isText`: a word answer, as `cleanAnswer` tells). */
const PERTURB_BY_KIND: Record<
  PerturbationKind,
  (answer: string, isText: boolean) => string | null
> = { increment, negate, drop, letter };

/** The perturbed answer of the given kind, or null when that kind does not apply to `answer`. */
export function perturb(answer: string, kind: PerturbationKind): string | null {
  return PERTURB_BY_KIND[kind](answer, cleanAnswer(answer).isText);
}
