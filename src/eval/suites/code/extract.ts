/**
 * @module eval/suites/code/extract
 * The program in a model's answer: the last fenced code block (```python ... ```), its
 * indentation kept, so a completion that continues the prompt's function body still fits.
 */

/** The instruction appended to every code problem. */
export const CODE_INSTRUCTION = "Reply with your Python code in a single ```python code block.";

/**
 * The code of the last fenced block in `text` (language tag optional), or the whole text when
 * there is no fence. Leading indentation of the first line is preserved.
 */
export function extractCode(text: string): string {
  // `[ \t]*(?:tag[ \t]*)?`, not the equivalent `[ \t]*tag?[ \t]*`: two adjacent `[ \t]*`
  // backtrack quadratically over a fence followed by a long run of spaces.
  const re = /```[ \t]*(?:([A-Za-z0-9_+-]+)[ \t]*)?\r?\n([\s\S]*?)```/g;
  let last: string | null = null;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) last = m[2] ?? "";
  if (last !== null) return last;
  // An unclosed final fence (the model ran out of tokens): take what follows it.
  const open = /```[ \t]*(?:[A-Za-z0-9_+-]+[ \t]*)?\r?\n([\s\S]*)$/.exec(text);
  return open ? (open[1] ?? "") : text;
}

/** Wraps code in a ```python fence, as the oracle answers. */
export function fenceCode(code: string): string {
  return `\`\`\`python\n${code}${code.endsWith("\n") ? "" : "\n"}\`\`\``;
}
