import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  compareCodePoints,
  isDict,
  parseJsonPy,
  type PyDict,
  pyJsonDumps,
  type PyKey,
  type PyValue,
} from "../python/index.js";
import { loadLongContextData } from "./data.js";
import { BfclInstances } from "./executor.js";
import { BfclSession } from "./session.js";
import { instancesGoldenValue, instancesState, jsonEqual } from "./state.js";
import { skipWithout } from "../../../test/missing.js";
import {
  BFCL_DATA_DIR,
  BFCL_DATA_MISSING,
  BFCL_DATA_PRESENT,
  TEST_TODAY,
} from "./testing/paths.js";
import type { JsonObject } from "../../env/types.js";

/** Upstream's answers to hand-written call sequences (see testing/gen_api_fixture.py). */
const fixtureText = readFileSync(new URL("./testing/api_fixture.json", import.meta.url), "utf8");
const fixture = JSON.parse(fixtureText) as {
  cases: Array<{
    name: string;
    classes: string[];
    long_context: boolean;
    calls: string[];
    results: string[];
    state_sha256: string[];
    final_state?: JsonObject;
  }>;
};
/** The same file parsed with Python's int/float distinction, for the scenarios. */
const typedCases = (parseJsonPy(fixtureText) as PyDict).get("cases") as PyDict[];

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** `json.dumps(value, sort_keys=True)`. */
function sortedDumps(v: PyValue): string {
  const sortDeep = (x: PyValue): PyValue => {
    if (Array.isArray(x)) return x.map(sortDeep);
    if (isDict(x)) {
      const keys = [...x.keys()].sort((a, b) => compareCodePoints(String(a), String(b)));
      return new Map<PyKey, PyValue>(keys.map((k) => [k, sortDeep(x.get(k)!)]));
    }
    return x;
  };
  return pyJsonDumps(sortDeep(v));
}

describe("API classes against upstream's own answers to edge cases", () => {
  fixture.cases.forEach((c, index) => {
    it.skipIf(c.long_context && skipWithout(BFCL_DATA_PRESENT ? null : BFCL_DATA_MISSING))(
      `${c.name}: ${c.calls.length} calls, results and state after each`,
      () => {
        const session = new BfclSession({
          loadLongContext: () => loadLongContextData(BFCL_DATA_DIR),
          today: TEST_TODAY,
        });
        const config = typedCases[index]!.get("config") as PyDict;
        const instances = new BfclInstances(session, c.classes, config, c.long_context);
        c.calls.forEach((call, i) => {
          const result = instances.executeString(call);
          const expected = c.results[i]!;
          const shown = expected.startsWith("sha256:") ? `sha256:${sha256(result)}` : result;
          expect({ call, result: shown }).toEqual({ call, result: expected });
          expect({ call, state: sha256(sortedDumps(instancesGoldenValue(instances))) }).toEqual({
            call,
            state: c.state_sha256[i],
          });
        });
        if (c.final_state) expect(jsonEqual(instancesState(instances), c.final_state)).toBe(true);
      },
    );
  });
});
