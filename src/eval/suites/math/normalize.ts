/**
 * @module eval/suites/math/normalize
 * String-level clean-up of a LaTeX final answer before it is parsed: presentation that does not
 * change the value (spacing, `\left`, `\dfrac`, units, currency, degrees, percent, thousands
 * separators) is removed so that only the mathematics is left for the symbolic comparison.
 */

/**
 * A cleaned answer. `isText` is true when the whole answer was a `\text{...}`-like wrapper (a word
 * answer such as `\text{even}` or `\text{(C)}`), which is compared as text, not as mathematics.
 */
export interface CleanAnswer {
  /** The cleaned LaTeX (or the unwrapped words when `isText`). */
  latex: string;
  /** The whole answer was text. */
  isText: boolean;
}

const TEXT_WRAPPERS = [
  "text",
  "textbf",
  "textit",
  "textrm",
  "textnormal",
  "mbox",
  "mathrm",
  "mathbf",
  "mathit",
  "operatorname",
];

/** The content of a brace group starting at `open` (the index of `{`), or null if unclosed. */
export function braceGroup(s: string, open: number): { content: string; end: number } | null {
  if (s[open] !== "{") return null;
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "\\") {
      i++;
      continue;
    }
    if (s[i] === "{") depth++;
    else if (s[i] === "}" && --depth === 0) return { content: s.slice(open + 1, i), end: i + 1 };
  }
  return null;
}

/** `\cmd{X}` spanning the whole string: returns X, else null. */
function wholeWrapper(s: string, names: readonly string[]): string | null {
  const m = /^\\([a-zA-Z]+)\s*\{/.exec(s);
  if (!m || !names.includes(m[1] ?? "")) return null;
  const group = braceGroup(s, m[0].length - 1);
  return group && group.end === s.length ? group.content : null;
}

/** Removes every `\cmd{...}` wrapper of the given names anywhere, keeping the content. */
export function unwrapCommands(s: string, names: readonly string[]): string {
  let out = s;
  for (let guard = 0; guard < 50; guard++) {
    const re = new RegExp(`\\\\(${names.join("|")})\\s*\\{`);
    const m = re.exec(out);
    if (!m) return out;
    const group = braceGroup(out, m.index + m[0].length - 1);
    if (!group) return out;
    out = out.slice(0, m.index) + group.content + out.slice(group.end);
  }
  return out;
}

/** Removes a trailing `\text{unit}` (or `\mbox`), with a `^2`-like power after it, when something precedes it. */
function stripTrailingTextUnit(s: string): string {
  let out = s;
  for (let guard = 0; guard < 5; guard++) {
    const re = /\\(?:text|mbox|textnormal|textrm|mathrm)\s*\{/g;
    let last: RegExpExecArray | null = null;
    for (let m = re.exec(out); m !== null; m = re.exec(out)) last = m;
    if (!last || last.index === 0) return out;
    const group = braceGroup(out, last.index + last[0].length - 1);
    if (!group) return out;
    const rest = out
      .slice(group.end)
      .replace(/^\s*\^\s*(\{\s*\d\s*\}|\d)/, "")
      .trim();
    // Only words (a unit, "degrees", "cents") count as a unit; `\text{ or }` between values does not.
    if (
      rest !== "" ||
      !/^[\sA-Za-z.\\$%]*$/.test(group.content) ||
      /\b(or|and)\b/.test(group.content)
    )
      return out;
    const before = out.slice(0, last.index).trim();
    if (before === "") return out;
    out = before;
  }
  return out;
}

/**
 * `s` without its surrounding dollar runs: what `s.replace(/^\$+([\s\S]*?)\$+$/, "$1")` gives
 * (all dollars: "" from two on), without that regex's cubic backtracking over a long `$` run.
 */
function unwrapDollars(s: string): string {
  let lead = 0;
  while (s[lead] === "$") lead++;
  if (lead === 0 || !s.endsWith("$")) return s;
  if (lead === s.length) return lead >= 2 ? "" : s;
  let end = s.length;
  while (s[end - 1] === "$") end--;
  return s.slice(lead, end);
}

const NUMERAL = String.raw`[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)`;

/**
 * Cleans a final answer. Rules, in order (each documented because graders differ on them):
 * 1. surrounding `$...$`, `\(...\)`, `\[...\]` and `\boxed{...}` wrappers are removed;
 * 2. `\left`, `\right`, `\big`-family sizes, `\displaystyle` and spacing (`\!`, `\,`, `\;`, `\:`,
 *    `\ `, `~`, `\quad`) are removed; `\dfrac`, `\tfrac`, `\cfrac` become `\frac`;
 * 3. an answer that is entirely `\text{...}` (or `\textbf`, `\mbox`...) is a word answer (`isText`);
 * 4. degrees (`^\circ`, `°`, `\degree`, "degrees") are dropped: `30^\circ` equals `30`;
 * 5. percent signs are dropped: `10\%` equals `10` (not `0.1`);
 * 6. currency (`\$`, `$`, "dollars", "cents") and trailing units (`\text{ cm}^2`, `5 apples`) are
 *    dropped when a value precedes them;
 * 7. thousands separators are removed when the whole answer is one number: `10,\!080` and
 *    `1{,}000` are numbers, while `1,-2` and `3, 5, 7` stay lists;
 * 8. a trailing full stop and repeated whitespace are removed.
 */
export function cleanAnswer(raw: string): CleanAnswer {
  let s = raw.trim();
  for (let guard = 0; guard < 5; guard++) {
    const before = s;
    s = unwrapDollars(s).trim();
    s = s
      .replace(/^\\\(([\s\S]*)\\\)$/, "$1")
      .replace(/^\\\[([\s\S]*)\\\]$/, "$1")
      .trim();
    const boxed = wholeWrapper(s, ["boxed", "fbox"]);
    if (boxed !== null) s = boxed.trim();
    if (s === before) break;
  }
  s = s
    .replace(/\\(?:displaystyle|textstyle|scriptstyle)\b/g, "")
    .replace(/\\(?:left|right)\s*\./g, "")
    .replace(/\\(?:left|right|[bB]igg?[lr]?)(?![a-zA-Z])/g, "")
    .replace(/\\[dtc]frac(?![a-zA-Z])/g, "\\frac")
    .replace(/\\(?:qquad|quad)(?![a-zA-Z])/g, " ")
    // Spacing commands, but not a row break `\\` followed by a space.
    .replace(/(?<!\\)\\[!,;:]/g, " ")
    .replace(/(?<!\\)\\ /g, " ")
    .replace(/~/g, " ")
    .trim();

  s = s.replace(/\.$/, "").trim(); // a sentence's full stop, e.g. `\text{Even}.`
  const text = wholeWrapper(s, ["text", "textbf", "textit", "textrm", "textnormal", "mbox"]);
  if (text !== null && /[A-Za-z]/.test(text) && !/\d/.test(text)) {
    return { latex: text.replace(/\s+/g, " ").trim().replace(/\.$/, ""), isText: true };
  }

  // Degrees, percent, currency.
  s = s
    .replace(/\^\s*\{\s*\\circ\s*\}/g, "")
    .replace(/\^\s*\\circ/g, "")
    .replace(/\\(?:circ|degree)(?![a-zA-Z])/g, "")
    .replace(/°/g, "")
    .replace(/\\%/g, "")
    .replace(/%/g, "")
    .replace(/\\\$/g, "")
    .replace(/\$/g, "")
    .replace(/\\(?:text|mbox)\s*\{\s*\}/g, "")
    .trim();
  s = stripTrailingTextUnit(s);
  // `\text{...}` left inside (e.g. `\text{ or }`, `\mathrm{cm}` mid-answer) keeps its words.
  s = unwrapCommands(s, ["textbf", "textit", "textrm", "mathrm", "mathbf", "mathit"]);
  // Trailing plain-word units after a numeral: `18 dollars`, `5 cm^2`, `3 apples.`
  const unitWords = new RegExp(
    `^(${NUMERAL})\\s+[A-Za-z]+\\.?(?:\\s+[A-Za-z]+\\.?)*(?:\\s*\\^\\s*\\{?\\d\\}?)?$`,
  );
  const mUnit = unitWords.exec(s);
  if (mUnit) s = mUnit[1] ?? s;
  s = s.replace(/\{,\}/g, ",").replace(/\s+/g, " ").trim();
  // Thousands separators, only when the whole answer is one number (`,` then spaces from `,\!`).
  const compact = s.replace(/,\s+(?=\d{3}\b)/g, ",");
  if (/^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(compact)) s = compact.replace(/,/g, "");
  s = s.replace(/\.$/, "").trim();
  return { latex: s, isText: false };
}

/** Text normal form for word answers: no wrappers, no case, no spaces; `(C)` becomes `c`. */
export function textKey(s: string): string {
  let t = unwrapCommands(s, TEXT_WRAPPERS).toLowerCase();
  t = t.replace(/[\s.'"`]+/g, "");
  const choice = /^\(([a-z])\)$/.exec(t);
  return choice ? (choice[1] ?? t) : t;
}
