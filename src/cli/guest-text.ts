/**
 * @module cli/guest-text
 * Text an environment program (or a model) wrote, made safe to print on a terminal: control
 * characters become visible escapes, so a guest cannot move the cursor, set the title, write the
 * clipboard or rewrite earlier report lines. `--json` output needs none of this (JSON escapes).
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls, and the Unicode bidirectional and
 * line/paragraph separators that reorder or break what a reader sees.
 */
const CONTROL =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_OR_NEWLINE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  if (char === "\n") return "\\n";
  if (char === "\r") return "\\r";
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control character shown as an escape (`\x1b`, `\r`, `\u202e`). Tabs stay;
 * newlines stay unless `oneLine` (then they show as `\n`, so one report row stays one row).
 */
export function visibleText(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine ? CONTROL_OR_NEWLINE : CONTROL, escapeChar);
}
