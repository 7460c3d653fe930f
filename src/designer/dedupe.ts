/**
 * @module designer/dedupe
 * Near-duplicate detection of environment programs against the archive.
 *
 * The measure. Code is lexed and normalised: comments and whitespace are dropped, every string
 * and template literal becomes `S`, every number `N`, every regular expression `R`, every
 * identifier that is not a keyword `I` (so renaming variables, methods and properties changes
 * nothing), punctuation and keywords stay. The code similarity is the Jaccard index of the sets
 * of `SHINGLE_TOKENS`-token shingles (contiguous windows) of two programs. The description
 * similarity is the Jaccard index of their sets of lowercase content words (stopwords removed).
 * The score is `CODE_WEIGHT * code + (1 - CODE_WEIGHT) * description`; a candidate is a
 * near-duplicate of the archived program with the highest score when that score is at least
 * the threshold (`DEFAULT_DUPLICATE_THRESHOLD`); ties go to the earlier archive entry.
 *
 * The search (designer/dedupe-index.ts) gives exactly that answer without scoring every archived
 * program, with the classic exact filters of set-similarity joins. Exact Jaccard, not MinHash:
 * no seed, no false negative, the same match and score as the exhaustive search. The bound: a
 * program scores at least the threshold `th` only if its code Jaccard reaches
 * `(th - (1 - CODE_WEIGHT) * d) / CODE_WEIGHT` for its description similarity `d` (0.375 for
 * `d` = 1 at the default, 0.625 for `d` = 0). Every archived program sharing a word with the
 * candidate is found through an inverted index from word to programs, which also counts the
 * shared words, so its `d` is exact. One sharing no word has `d` = 0 and needs code Jaccard
 * `t` = `th / CODE_WEIGHT`; the prefix filter finds it: Jaccard `t` needs an overlap of
 * `ceil(t * |A|)`, so it must share one of the `|A| - ceil(t * |A|) + 1` rarest shingles of the
 * candidate `A` (rarest in the archive so far: any order is exact, the rarest touches the fewest
 * programs), looked up in an inverted index from shingle to programs. Each program found is then
 * bounded (shared shingles at most those found in the prefix plus the rest of `A`, and at most
 * the smaller size: the size filter `t|A| <= |B| <= |A|/t`) and scored exactly only if that
 * bound reaches the threshold. At a threshold of 0 or less nothing can be filtered, and every
 * program is scored. The index holds every shingle of every archived program in typed arrays (a
 * 2,400-design run: about 4 million postings), grows one program at a time, and is rebuilt from
 * the store on resume (loop/design-memory.ts: one fingerprint per stored design, then one append
 * per shingle; measured 1.7-2 ms a design, mostly the fingerprint).
 * Tokens come from js-tokens (a maintained tokenizer that never throws), so programs that do not
 * parse are measured too.
 */
import { detectProgramLanguage } from "../sandbox/index.js";
import { pythonAsLexable } from "./python-source.js";

import jsTokens from "js-tokens";
import { fnv1a32 } from "../random/index.js";

/** Tokens per shingle. Long enough that shared idioms (`this.I = I;`) do not make programs alike. */
export const SHINGLE_TOKENS = 10;
/** Weight of the code similarity in the score; the rest is the description's. */
export const CODE_WEIGHT = 0.8;
/**
 * Score at or above which a program is a near-duplicate. Measured (dedupe.test.ts): the highest
 * score of two different library programs is 0.21 (record-migration, warehouse-restock); a
 * library program with renamed identifiers, changed constants and a rewritten description scores
 * 0.80, and with a helper method and a rule added on top 0.70.
 */
export const DEFAULT_DUPLICATE_THRESHOLD = 0.5;

const KEYWORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else export extends false finally for function if import in " +
    "instanceof let new null of return static super switch this throw true try typeof undefined var void while with yield async await get set"
  ).split(" "),
);
/**
 * The normalised token sequence of `source` (see the module comment). Never throws: js-tokens
 * tokenises any text, and a template literal with substitutions counts as one string, nested
 * templates included.
 */
export function normaliseCode(source: string): string[] {
  const tokens: string[] = [];
  let templateDepth = 0;
  for (const token of jsTokens(source)) {
    if (token.type === "TemplateHead") {
      if (templateDepth++ === 0) tokens.push("S");
      continue;
    }
    if (token.type === "TemplateTail") {
      templateDepth = Math.max(0, templateDepth - 1);
      continue;
    }
    if (templateDepth > 0) continue;
    switch (token.type) {
      case "WhiteSpace":
      case "LineTerminatorSequence":
      case "SingleLineComment":
      case "MultiLineComment":
      case "HashbangComment":
        break;
      case "StringLiteral":
      case "NoSubstitutionTemplate":
        tokens.push("S");
        break;
      case "NumericLiteral":
        tokens.push("N");
        break;
      case "RegularExpressionLiteral":
        tokens.push("R");
        break;
      case "IdentifierName":
        tokens.push(KEYWORDS.has(token.value) ? token.value : "I");
        break;
      case "PrivateIdentifier":
        tokens.push("I");
        break;
      default:
        tokens.push(token.value);
    }
  }
  return tokens;
}

const STOPWORDS = new Set(
  "a an and are as at be by each for from has have in is it its of on or that the their then this to was were with which who will you your after before into over under than can one two".split(
    " ",
  ),
);

/** The lowercase content words of a description. */
export function descriptionWords(description: string): Set<string> {
  return new Set(
    (description.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter(
      (w) => w.length > 1 && !STOPWORDS.has(w),
    ),
  );
}

/** What the measure compares, precomputed once per program. */
export interface Fingerprint {
  /**
   * Hashes of the code's token shingles, ascending, each once. A typed array, not a Set: a run's
   * archive holds thousands of fingerprints for its whole length, and a Set of numbers is an
   * object per hash that every garbage collection walks (2,400 designs: ~160 MiB, every step slower).
   */
  shingles: Uint32Array;
  /** Content words of the description. */
  words: ReadonlySet<string>;
}

/** The fingerprint of a program and its description. */
export function fingerprint(source: string, description: string): Fingerprint {
  const tokens = normaliseCode(
    detectProgramLanguage(source) === "python" ? pythonAsLexable(source) : source,
  );
  const shingles = new Set<number>();
  // Each shingle is its tokens joined by spaces: a slice of the whole text joined once (no array per shingle).
  const text = tokens.join(" ");
  if (tokens.length > 0 && tokens.length < SHINGLE_TOKENS) shingles.add(fnv1a32(text));
  const starts: number[] = [];
  for (let i = 0, at = 0; i < tokens.length; at += (tokens[i++] as string).length + 1)
    starts.push(at);
  for (let i = 0; i + SHINGLE_TOKENS <= tokens.length; i++) {
    const last = i + SHINGLE_TOKENS - 1;
    const end = (starts[last] as number) + (tokens[last] as string).length;
    shingles.add(fnv1a32(text.slice(starts[i] as number, end)));
  }
  return { shingles: Uint32Array.from(shingles).sort(), words: descriptionWords(description) };
}

/** Jaccard index |A ∩ B| / |A ∪ B|; 0 when both are empty. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const x of small) if (large.has(x)) common++;
  return common / (a.size + b.size - common);
}

/** The Jaccard index of two ascending arrays of distinct values (one merge); 0 when both are empty. */
export function sortedJaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 && b.length === 0) return 0;
  let common = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      common++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return common / (a.length + b.length - common);
}

/** The similarity of two fingerprints. */
export interface Similarity {
  code: number;
  description: number;
  /** `CODE_WEIGHT * code + (1 - CODE_WEIGHT) * description`. */
  score: number;
}

/** How alike two programs are (see the module comment). */
export function similarity(a: Fingerprint, b: Fingerprint): Similarity {
  const code = sortedJaccard(a.shingles, b.shingles);
  const description = jaccard(a.words, b.words);
  return { code, description, score: CODE_WEIGHT * code + (1 - CODE_WEIGHT) * description };
}

/** One archived program as dedupe sees it. */
export interface ArchivedProgram {
  /** The archive's id of it (a store id: `d<step>-<slot>`, or `lib-<name>` for library programs). */
  id: string;
  /** `meta.name`. */
  name: string;
  fingerprint: Fingerprint;
}

/** An archive entry built from a program's source and description. */
export function archivedProgram(
  id: string,
  name: string,
  source: string,
  description: string,
): ArchivedProgram {
  return { id, name, fingerprint: fingerprint(source, description) };
}

/** A near-duplicate found in the archive. */
export interface DuplicateMatch extends Similarity {
  id: string;
  name: string;
}
