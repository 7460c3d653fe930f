/**
 * @module eval
 * Held-out evaluation: running suites and recording their results. The Python semantics the
 * ports share live in `eval/python/`; each benchmark has its folder (bfcl, acebench, suites, rg,
 * tau2, paper).
 */
export * from "./run/index.js";
