/**
 * @module grounding/truncate
 * Cutting a grounding document to a word budget, so a long page cannot crowd out the rest of the
 * designer prompt.
 */
import { SpadeError } from "../errors.js";

/** Word budget of a grounding document for game designs (the reference's `max_doc_tokens`). */
export const DEFAULT_MAX_WORDS = 6000;

/** Word budget of a grounding document for tool-use designs, whose prompt is longer. */
export const TOOL_USE_MAX_WORDS = 4000;

/**
 * The line appended to a cut document, so the designer knows the text stops mid-way. Same words
 * as the reference (`[Document truncated at ~N words]`), after a newline.
 */
export function truncationMarker(maxWords: number): string {
  return `\n[Document truncated at ~${maxWords} words]`;
}

/**
 * Keeps the first `maxWords` words of `text` (a word is a maximal run of non-whitespace) and
 * appends `truncationMarker(maxWords)` when anything was cut. Unlike the reference, the kept part
 * keeps its own whitespace and line breaks (headings and tables stay readable); trailing
 * whitespace before the marker is dropped. Text within budget is returned unchanged.
 * Throws E_CONFIG unless `maxWords` is a positive integer.
 */
export function truncateWords(text: string, maxWords: number = DEFAULT_MAX_WORDS): string {
  if (!Number.isInteger(maxWords) || maxWords < 1) {
    throw new SpadeError("E_CONFIG", `maxWords must be a positive integer, got ${maxWords}`, {
      nextStep: `use ${DEFAULT_MAX_WORDS} for games or ${TOOL_USE_MAX_WORDS} for tool use`,
    });
  }
  const wordPattern = /\S+/g;
  let seen = 0;
  let match: RegExpExecArray | null;
  while ((match = wordPattern.exec(text)) !== null) {
    seen += 1;
    if (seen === maxWords) {
      const end = match.index + match[0].length;
      // Only a cut when another word follows; trailing whitespace alone is no truncation.
      if (/\S/.test(text.slice(end))) return text.slice(0, end) + truncationMarker(maxWords);
      return text;
    }
  }
  return text;
}

/** Number of words in `text` (maximal runs of non-whitespace), as `truncateWords` counts them. */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}
