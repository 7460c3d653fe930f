/**
 * @module grounding
 * Public face of grounding: opening a corpus (JSONL, JSONL.gz, Parquet, folders, the shipped
 * default), the seeded resumable sampler, and word truncation. See docs/grounding.md.
 */
export type { Corpus, CorpusDocument, CorpusFormat, CorpusOptions } from "./types.js";
export { openCorpus, DEFAULT_CORPUS_PATH, DEFAULT_CORPUS_SPEC } from "./open.js";
export { createSampler, Sampler, MAX_ATTEMPTS_PER_DRAW } from "./sampler.js";
export type { SamplerOptions, SamplerState, SampledDocument } from "./sampler.js";
export {
  truncateWords,
  truncationMarker,
  countWords,
  DEFAULT_MAX_WORDS,
  TOOL_USE_MAX_WORDS,
} from "./truncate.js";
export { uniformAt, indexAt } from "../random/index.js";
