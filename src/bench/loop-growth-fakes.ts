/**
 * @module bench/loop-growth-fakes
 * What the growth benchmark fakes of sampling: agent episodes' transcripts and traces of a
 * realistic shape, and seeded variants of library programs and their descriptions as designs.
 */
import type { Json } from "../env/index.js";
import type { LibraryProgram } from "../loop/library.js";

/** A fake agent episode's transcript: `turns` steps of short text (at most 6 kept, as a short game). */
export function transcript(turns: number, success: boolean, hinted: boolean): Json {
  const kept = Math.min(turns, 6);
  return {
    firstObservation: `You face a puzzle. Find the hidden value.${hinted ? "\n\nHINT: work from the ends." : ""}`,
    outcome: "terminated",
    maskedTurns: [],
    steps: Array.from({ length: kept }, (_, t) => ({
      action: {
        text: `I think the answer is \\boxed{${t}} because ${"x".repeat(120)}`,
        answer: String(t),
        toolCalls: [],
      },
      observation: `Turn ${t}: not quite. ${"o".repeat(100)}`,
      reward: t === kept - 1 && success ? 1 : 0,
      terminated: t === kept - 1,
      truncated: false,
      toolResults: [],
    })),
  };
}

/** A fake per-turn trace (token ids and logprobs), as a sampling backend records it. */
export function trace(turns: number, random: () => number): Json {
  return {
    turns: Array.from({ length: Math.min(turns, 6) }, () => ({
      tokens: Array.from({ length: 32 }, () => Math.floor(random() * 150_000)),
      logprobs: Array.from({ length: 32 }, () => Math.round(-random() * 1e4) / 1e4),
    })),
  };
}

const OPERATORS = "+ - * / % & | ^ << >> && || ?? < > ===".split(" ");

/** A random statement of 2-5 operations (`v = v + w * 1;`): its token shapes are rarely seen twice. */
function randomStatement(random: () => number): string {
  let expression = "v";
  for (let k = 2 + Math.floor(random() * 4); k > 0; k--)
    expression += ` ${OPERATORS[Math.floor(random() * OPERATORS.length)]} ${random() < 0.5 ? "w" : "1"}`;
  return `v = ${expression};`;
}

/**
 * A seeded variant of `source`: after each line ending in `;`, a random statement with probability
 * 1/2. Two variants of one program score about 0.4 in code, a variant and its base 0.5
 * (measured on the library); a near-duplicate needs 0.375 with equal descriptions.
 */
export function variantProgram(source: string, random: () => number): string {
  return source
    .split("\n")
    .map((line) =>
      line.trimEnd().endsWith(";") && random() < 0.5 ? `${line} ${randomStatement(random)}` : line,
    )
    .join("\n");
}

/** A seeded variant of `description`: each word swapped, with probability 1/2, for one of `vocabulary`. */
export function variantDescription(
  description: string,
  vocabulary: readonly string[],
  random: () => number,
): string {
  return description
    .split(" ")
    .map((w) =>
      random() < 0.5 ? (vocabulary[Math.floor(random() * vocabulary.length)] as string) : w,
    )
    .join(" ");
}

/** Every word of the library's descriptions, in order of first use: what a variant's description draws from. */
export const vocabulary = (() => {
  let words: string[] | null = null;
  return (library: readonly LibraryProgram[]) => {
    words ??= [...new Set(library.flatMap((p) => p.meta.description.split(" ")))];
    return words;
  };
})();
