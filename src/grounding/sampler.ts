/**
 * @module grounding/sampler
 * The seeded, resumable document sampler: one uniform draw (with replacement) per design
 * attempt, as in the reference, but with a state small enough to save with the run so a resumed
 * run continues the sequence instead of restarting it.
 */
import { SpadeError } from "../errors.js";
import { indexAt } from "../random/index.js";
import { DEFAULT_MAX_WORDS, truncateWords } from "./truncate.js";
import type { Corpus } from "./types.js";

/** The sampler's whole state, a plain JSON value. Save it with the run; pass it back to resume. */
export interface SamplerState {
  version: 1;
  /** The run's seed (any safe integer). */
  seed: number;
  /** How many times `next()` has been called. The next call is draw number `draws`. */
  draws: number;
  /** Size of the corpus it drew from; resuming against another size is refused. */
  corpusSize: number;
}

/** One drawn document, cut to the word budget. */
export interface SampledDocument {
  docId: string;
  /** The text, truncated to `maxWords` words with the marker when longer (see truncateWords). */
  text: string;
  /** Position in the corpus. */
  index: number;
  /** Which call of `next()` produced it, from 0. */
  draw: number;
  /** True when the text was cut. */
  truncated: boolean;
  title?: string;
}

/** Options of `createSampler`. */
export interface SamplerOptions {
  /** Seed of the sequence (any safe integer). Required unless `state` is given. */
  seed?: number;
  /** A saved `state()`: continue from it. When `seed` is also given it must match. */
  state?: SamplerState;
  /** Word budget per document; null keeps documents whole. Default 6,000 (DEFAULT_MAX_WORDS). */
  maxWords?: number | null;
}

/**
 * Tries per draw before giving up when documents read as null (Parquet rows with no text); with
 * half the rows empty, 64 tries all failing has probability 2^-64.
 */
export const MAX_ATTEMPTS_PER_DRAW = 64;

function badState(why: string): SpadeError {
  return new SpadeError("E_CONFIG", `invalid sampler state: ${why}`, {
    nextStep: "pass the value sampler.state() returned, unchanged",
  });
}

/** Checks a saved state's shape; throws E_CONFIG. */
function checkState(state: SamplerState): void {
  if (typeof state !== "object" || state === null) throw badState("not an object");
  if (state.version !== 1) throw badState(`unknown version ${JSON.stringify(state.version)}`);
  if (!Number.isSafeInteger(state.seed)) throw badState("seed is not a safe integer");
  if (!Number.isSafeInteger(state.draws) || state.draws < 0)
    throw badState("draws is not a non-negative integer");
  if (!Number.isSafeInteger(state.corpusSize) || state.corpusSize < 1)
    throw badState("corpusSize is not a positive integer");
}

/**
 * Draws documents uniformly at random, with replacement, from a corpus. Draw d reads document
 * `indexAt(size, seed, d, attempt)`, a pure function of its numbers, so the sequence is the same
 * in every process and after any resume. `next()` claims its draw number when called, so
 * concurrent calls get distinct draws in call order.
 */
export class Sampler {
  private draws: number;

  private constructor(
    private readonly corpus: Corpus,
    private readonly seed: number,
    draws: number,
    private readonly maxWords: number | null,
  ) {
    this.draws = draws;
  }

  /** A sampler at the start of the sequence for `seed`. Throws E_CONFIG for a bad seed. */
  static create(
    corpus: Corpus,
    seed: number,
    maxWords: number | null = DEFAULT_MAX_WORDS,
  ): Sampler {
    if (!Number.isSafeInteger(seed)) {
      throw new SpadeError("E_CONFIG", `the sampler seed must be a safe integer, got ${seed}`, {
        nextStep: "use the run's integer seed",
      });
    }
    if (maxWords !== null) truncateWords("", maxWords); // validates the budget
    return new Sampler(corpus, seed, 0, maxWords);
  }

  /**
   * A sampler that continues where `state` left off. Throws E_CONFIG for a malformed state or
   * when the corpus now has a different number of documents (the sequence would mean other
   * documents).
   */
  static fromState(
    corpus: Corpus,
    state: SamplerState,
    maxWords: number | null = DEFAULT_MAX_WORDS,
  ): Sampler {
    checkState(state);
    if (state.corpusSize !== corpus.size) {
      throw new SpadeError(
        "E_CONFIG",
        `the saved sampler drew from ${state.corpusSize} documents, ${corpus.path} has ${corpus.size}`,
        {
          nextStep: "resume with the same corpus and text field as the original run",
        },
      );
    }
    const sampler = Sampler.create(corpus, state.seed, maxWords);
    sampler.draws = state.draws;
    return sampler;
  }

  /** The state to save: after resuming from it, `next()` returns what this sampler's would. */
  state(): SamplerState {
    return { version: 1, seed: this.seed, draws: this.draws, corpusSize: this.corpus.size };
  }

  /**
   * The next document. Throws E_PARSE when MAX_ATTEMPTS_PER_DRAW reads in a row have no text,
   * and whatever `corpus.read` throws (E_IO when a file went away).
   */
  async next(): Promise<SampledDocument> {
    const draw = this.draws;
    this.draws += 1;
    for (let attempt = 0; attempt < MAX_ATTEMPTS_PER_DRAW; attempt++) {
      const doc = await this.corpus.read(indexAt(this.corpus.size, this.seed, draw, attempt));
      if (doc === null) continue;
      const text = this.maxWords === null ? doc.text : truncateWords(doc.text, this.maxWords);
      const sampled: SampledDocument = {
        docId: doc.docId,
        text,
        index: doc.index,
        draw,
        truncated: text !== doc.text,
      };
      if (doc.title !== undefined) sampled.title = doc.title;
      return sampled;
    }
    throw new SpadeError(
      "E_PARSE",
      `${MAX_ATTEMPTS_PER_DRAW} documents in a row from ${this.corpus.path} have no text`,
      {
        nextStep: "check the corpus's text field; most of its records are empty",
      },
    );
  }
}

/**
 * A sampler over `corpus`: fresh for `options.seed`, or continuing `options.state`.
 * Throws E_CONFIG when neither is given, when they disagree on the seed, or for a bad state.
 */
export function createSampler(corpus: Corpus, options: SamplerOptions): Sampler {
  const maxWords = options.maxWords === undefined ? DEFAULT_MAX_WORDS : options.maxWords;
  if (options.state !== undefined) {
    if (options.seed !== undefined && options.seed !== options.state.seed) {
      throw new SpadeError(
        "E_CONFIG",
        `seed ${options.seed} differs from the saved sampler's seed ${options.state.seed}`,
        {
          nextStep:
            "resume with the original seed, or drop the saved state to start a new sequence",
        },
      );
    }
    return Sampler.fromState(corpus, options.state, maxWords);
  }
  if (options.seed === undefined) {
    throw new SpadeError("E_CONFIG", "createSampler needs a seed or a saved state", {
      nextStep: "pass { seed }",
    });
  }
  return Sampler.create(corpus, options.seed, maxWords);
}
