/**
 * @module eval/suites/math/structure
 * The shape of a final answer: a single expression, an ordered tuple or interval, an unordered
 * list or set (also what `a \pm b` means), a union of intervals, a matrix, an equation, a number
 * in a base, or words. The mathematics inside each leaf is left to the symbolic comparison.
 */
import { textKey, type CleanAnswer } from "./normalize.js";

/** A parsed answer. Every node keeps its cleaned LaTeX in `raw`. */
export type AnswerNode =
  | { kind: "expr"; raw: string }
  | { kind: "text"; raw: string; key: string }
  | { kind: "base"; raw: string; digits: string; base: number }
  | { kind: "seq"; raw: string; open: "(" | "["; close: ")" | "]"; items: AnswerNode[] }
  | { kind: "bag"; raw: string; origin: "bare" | "set" | "pm"; items: AnswerNode[] }
  | { kind: "union"; raw: string; parts: AnswerNode[] }
  | { kind: "matrix"; raw: string; rows: AnswerNode[][] }
  | { kind: "equation"; raw: string; lhs: string; rhs: string };

/**
 * Splits `s` at separators that sit outside every bracket: `{}`, `()`, `[]`, `\{ \}` and
 * `\begin..\end`. Commands are skipped whole, so `\leq` never matches `=`, nor `\cupcake` `\cup`.
 */
export function splitTopLevel(s: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; ) {
    if (
      depth === 0 &&
      s.startsWith(separator, i) &&
      !(separator.startsWith("\\") && /[a-zA-Z]/.test(s[i + separator.length] ?? ""))
    ) {
      parts.push(s.slice(start, i));
      i += separator.length;
      start = i;
      continue;
    }
    const ch = s[i] ?? "";
    if (ch === "\\") {
      const next = s[i + 1] ?? "";
      if (next === "{" || next === "(" || next === "[") depth++;
      else if (next === "}" || next === ")" || next === "]") depth--;
      if (s.startsWith("\\begin", i)) depth++;
      else if (s.startsWith("\\end", i)) depth--;
      if (/[a-zA-Z]/.test(next)) {
        let j = i + 1;
        while (j < s.length && /[a-zA-Z]/.test(s[j] ?? "")) j++;
        i = j;
      } else {
        i += 2;
      }
      continue;
    }
    if (ch === "{" || ch === "(" || ch === "[") depth++;
    else if (ch === "}" || ch === ")" || ch === "]") depth--;
    i++;
  }
  parts.push(s.slice(start));
  return parts;
}

/** The outer bracket pair when it encloses the whole string (`(a,b]`, `\{1,2\}`), else null. */
export function outerBrackets(s: string): { open: string; close: string; inner: string } | null {
  const open = s.startsWith("\\{") ? "\\{" : s[0] === "(" || s[0] === "[" ? s[0] : null;
  if (open === null) return null;
  const close = open === "\\{" ? "\\}" : s.endsWith(")") ? ")" : s.endsWith("]") ? "]" : null;
  if (close === null || !s.endsWith(close) || s.length < open.length + close.length) return null;
  const inner = s.slice(open.length, s.length - close.length);
  // The opening bracket must close at the very end: the inner text is balanced on its own.
  if (!balanced(inner)) return null;
  return { open, close, inner };
}

/** Brackets of every kind close in order and never go below zero (`a)(b` is not balanced). */
function balanced(s: string): boolean {
  let depth = 0;
  for (const ch of s) {
    if (ch === "{" || ch === "(" || ch === "[") depth++;
    else if (ch === "}" || ch === ")" || ch === "]") depth--;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** Most `\\pm` signs expanded in one answer (2^4 = 16 values). */
const MAX_PLUS_MINUS = 4;

const MATRIX = /^\\begin\{([pbBvV]?matrix|array)\}([\s\S]*)\\end\{\1\}$/;
const BASE = /^([0-9A-Za-z]+)_\{?(\d+)\}?$/;
const SYMBOL = /^[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?$/;

/** True when `latex` is one variable name (`x`, `y_1`): the left side of `x = 3`. */
export function isSymbol(latex: string): boolean {
  return SYMBOL.test(latex.trim());
}

function parseMatrix(kind: string, body: string, raw: string): AnswerNode {
  let inner = body.trim();
  if (kind === "array") inner = inner.replace(/^\{[^}]*\}/, "");
  const rows = splitTopLevel(inner, "\\\\")
    .map((row) => row.trim())
    .filter((row) => row !== "")
    .map((row) => splitTopLevel(row, "&").map((cell) => parseLatexAnswer(cell.trim())));
  return { kind: "matrix", raw, rows };
}

/** Items of a list; `a \pm b` inside an unordered list contributes both of its values. */
function listItems(parts: string[], flattenPm: boolean): AnswerNode[] {
  const items = parts.map((p) => parseLatexAnswer(p.trim()));
  if (!flattenPm) return items;
  return items.flatMap((item) =>
    item.kind === "bag" && item.origin === "pm" ? item.items : [item],
  );
}

/** Parses cleaned LaTeX (not text) into its answer shape. */
export function parseLatexAnswer(latex: string): AnswerNode {
  const raw = latex.trim();
  const matrix = MATRIX.exec(raw);
  if (matrix) return parseMatrix(matrix[1] ?? "", matrix[2] ?? "", raw);

  const unionParts = splitTopLevel(raw, "\\cup");
  if (unionParts.length > 1)
    return { kind: "union", raw, parts: unionParts.map((p) => parseLatexAnswer(p.trim())) };

  const member = splitTopLevel(raw, "\\in");
  if (member.length === 2 && isSymbol(member[0] ?? ""))
    return parseLatexAnswer((member[1] ?? "").trim());

  const sides = splitTopLevel(raw, "=");
  if (sides.length >= 2) {
    return {
      kind: "equation",
      raw,
      lhs: (sides[0] ?? "").trim(),
      rhs: (sides[sides.length - 1] ?? "").trim(),
    };
  }

  const outer = outerBrackets(raw);
  if (outer) {
    const parts = splitTopLevel(outer.inner, ",");
    if (outer.open === "\\{")
      return { kind: "bag", raw, origin: "set", items: listItems(parts, true) };
    if (parts.length > 1) {
      return {
        kind: "seq",
        raw,
        open: outer.open as "(" | "[",
        close: outer.close as ")" | "]",
        items: listItems(parts, false),
      };
    }
  }

  const commaParts = splitTopLevel(raw, ",");
  if (commaParts.length > 1)
    return { kind: "bag", raw, origin: "bare", items: listItems(commaParts, true) };

  const pm = /\\(pm|mp)(?![a-zA-Z])/.exec(raw);
  // Each ± doubles the values; past a few it is not an answer but a way to blow up the grader.
  if (pm && (raw.match(/\\(?:pm|mp)(?![a-zA-Z])/g) ?? []).length <= MAX_PLUS_MINUS) {
    const [first, second] = pm[1] === "pm" ? ["+", "-"] : ["-", "+"];
    const at = (sign: string) =>
      `${raw.slice(0, pm.index)}${sign}${raw.slice(pm.index + pm[0].length)}`.trim();
    return {
      kind: "bag",
      raw,
      origin: "pm",
      items: [parseLatexAnswer(at(first)), parseLatexAnswer(at(second))],
    };
  }

  const base = BASE.exec(raw);
  if (base && /\d/.test(base[1] ?? ""))
    return { kind: "base", raw, digits: (base[1] ?? "").toLowerCase(), base: Number(base[2]) };

  return { kind: "expr", raw };
}

/** Parses a cleaned answer into its shape. */
export function parseAnswer(clean: CleanAnswer): AnswerNode {
  if (clean.isText) return { kind: "text", raw: clean.latex, key: textKey(clean.latex) };
  return parseLatexAnswer(clean.latex);
}
