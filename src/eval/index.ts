/**
 * @module eval
 * Held-out evaluation: running suites and recording their results. The Python semantics the
 * ports share live in `eval/python/`; each benchmark has its folder (bfcl, acebench, suites, rg,
 * tau2, paper).
 */
export * from "./run/index.js";
export {
  DATA_DIR_ENV,
  DATA_NEXT_STEP,
  dataRoot,
  datasetDir,
  field,
  parseJsonl,
  readJson,
  readJsonSync,
  readJsonl,
  readJsonlSync,
  readText,
  readTextSync,
  takeLimit,
  type DataDirOptions,
} from "./data.js";
