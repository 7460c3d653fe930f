/**
 * @module eval/bfcl/testing/paths
 * Where tests find the BFCL data: `../shared/benchmarks/bfcl` seen from the repository root.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The BFCL data folder, resolved from this file's location. */
export const BFCL_DATA_DIR = fileURLToPath(new URL("../../../../../shared/benchmarks/bfcl/", import.meta.url));

/** Whether the data is present; suites skip (with this reason) when it is not. */
export const BFCL_DATA_PRESENT = existsSync(BFCL_DATA_DIR);

/** The skip reason shown when the data is absent. */
export const BFCL_DATA_MISSING = `BFCL data not found at ${BFCL_DATA_DIR} (expected ../shared/benchmarks/bfcl)`;

/** A fixed clock for tests (the pinned upstream commit's date). */
export const TEST_TODAY = (): Date => new Date(2026, 2, 23);
