/**
 * @module memory
 * Public face of the environment memory: which past environments the designer sees (references
 * and one to avoid), over a window of the archive, optionally seeded from the library.
 */
export { selectMemory, memoryWindow, sampleWithoutReplacement } from "./select.js";
export { librarySeedRecords, withLibrarySeeds } from "./seed.js";
export type { LibrarySeed, LibrarySeedOptions } from "./seed.js";
export type { EnvRecord, MemoryOptions, MemorySelection, AvoidExample } from "./types.js";
