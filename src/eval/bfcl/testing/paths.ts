/**
 * @module eval/bfcl/testing/paths
 * Where tests find the BFCL data: `bfcl/` in the data folder (`dataRoot`; tests set
 * SPADE_DATA_DIR to ../shared/benchmarks).
 */
import { existsSync } from "node:fs";
import { describe } from "vitest";
import { skipWithout } from "../../../../test/missing.js";
import { dataRoot } from "../../data.js";

/** The BFCL data folder, with a trailing slash. */
export const BFCL_DATA_DIR = `${dataRoot({ env: process.env })}/bfcl/`;

/** Whether the data is present; suites skip (with this reason) when it is not. */
export const BFCL_DATA_PRESENT = existsSync(BFCL_DATA_DIR);

/** The skip reason shown when the data is absent. */
export const BFCL_DATA_MISSING = `BFCL data not found at ${BFCL_DATA_DIR} (expected ../shared/benchmarks/bfcl)`;

/**
 * A suite that needs the BFCL data. Without it the suite follows test/missing.ts: skipped with
 * the reason printed, or failing under CI.
 */
export function describeWithBfclData(title: string, body: () => void): void {
  describe.skipIf(skipWithout(BFCL_DATA_PRESENT ? null : BFCL_DATA_MISSING))(title, body);
}

/** A fixed clock for tests (the pinned upstream commit's date). */
export const TEST_TODAY = (): Date => new Date(2026, 2, 23);
