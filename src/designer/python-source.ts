/**
 * @module designer/python-source
 * Python designs in the designer's JavaScript-minded text tools: `pythonAsLexable` turns Python
 * source into text the dedupe lexer measures fairly (its `#` comments and docstrings are not
 * code), so a renamed copy of a Python program is caught like a JavaScript one.
 */

/**
 * `source` with Python comments removed and every string literal (triple-quoted included)
 * replaced by `""`, so the JavaScript-style lexer sees one string token per literal and no
 * comment words. Tolerant: an unclosed string runs to the end.
 */
export function pythonAsLexable(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === "#") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const triple = source.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      i += close.length;
      while (i < source.length && !source.startsWith(close, i) && (triple || source[i] !== "\n"))
        i += source[i] === "\\" ? 2 : 1;
      i += close.length;
      out += '""';
      continue;
    }
    out += c;
    i++;
  }
  return out;
}
