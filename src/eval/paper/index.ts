/**
 * @module eval/paper
 * Public face of the paper's evaluation tables: columns in the reference's order, pluggable
 * column sources, one model's run, and side-by-side comparison.
 */
export {
  PAPER_COLUMNS,
  PAPER_SETTINGS,
  difference,
  formatScore,
  isPaperSetting,
  renderCsv,
  renderMarkdown,
  tableCells,
  type Cell,
  type PaperRow,
  type PaperSetting,
} from "./table.js";
export * from "./qa.js";
export {
  aceAgentSource,
  qaSource,
  rgSource,
  runSource,
  sourceDir,
  tau2ResultsSource,
  TAU2_COLUMNS,
  unavailableSource,
  unsupportedSource,
  type ColumnSource,
  type SourceContext,
  type SourceResult,
} from "./sources.js";
export {
  PAPER_RESULTS_FILE,
  readPaperRow,
  runPaper,
  writePaperFiles,
  type PaperRun,
  type RunPaperOptions,
} from "./run.js";
export {
  aceNormalSpecialSource,
  aceOverallSource,
  recordingSource,
  type CellStore,
} from "./acebench-source.js";
export { bfclSource, type BfclSourceOptions } from "./bfcl-source.js";
export { lcbItems, LCB_SETTINGS } from "./lcb.js";
