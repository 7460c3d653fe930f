import { expect, it } from "vitest";
import { goldenPath, loadEntries, loadGolden, loadLongContextData } from "./data.js";
import { replayCategory, replayEntry } from "./replay.js";
import { BFCL_DATA_DIR, describeWithBfclData, TEST_TODAY } from "./testing/paths.js";

describeWithBfclData("golden replay", () => {
  for (const category of ["base", "miss_func"] as const) {
    it(`matches upstream on all 200 ${category} entries: every result string and every state`, () => {
      const report = replayCategory(BFCL_DATA_DIR, category, { today: TEST_TODAY });
      expect(report.mismatches).toEqual([]);
      expect(report).toMatchObject({ mode: "golden", entries: 200, matched: 200 });
    });
  }

  it("reports a changed result string and a changed state value", () => {
    const [entry] = loadEntries(BFCL_DATA_DIR, "base");
    const golden = loadGolden(goldenPath(BFCL_DATA_DIR, "base"))[0]!;
    expect(entry!.id).toBe("multi_turn_base_0");
    const tampered = structuredClone(golden);
    tampered.turns[0]!.results[0] = '{"current_working_directory": "elsewhere"}';
    const fs = tampered.turns[1]!.state_after.GorillaFileSystem as { long_context: boolean };
    fs.long_context = true;
    const options = {
      loadLongContext: () => loadLongContextData(BFCL_DATA_DIR),
      today: TEST_TODAY,
    };
    expect(replayEntry(entry!, golden, options)).toEqual([]);
    expect(replayEntry(entry!, tampered, options)).toEqual([
      {
        id: "multi_turn_base_0",
        turn: 0,
        what: `result of cd(folder='document'): port {"current_working_directory": "document"} vs golden {"current_working_directory": "elsewhere"}`,
      },
      {
        id: "multi_turn_base_0",
        turn: 1,
        what: "state /GorillaFileSystem/long_context: port false vs golden true",
      },
    ]);
  });

  it("without a golden file, checks the ground truth against itself (miss_param, long_context)", () => {
    for (const category of ["miss_param", "long_context"] as const) {
      const report = replayCategory(BFCL_DATA_DIR, category, { today: TEST_TODAY });
      expect(report).toEqual({ mode: "checker", entries: 200, matched: 200, mismatches: [] });
    }
  });
});
