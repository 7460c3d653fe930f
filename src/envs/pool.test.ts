// Reading a pool folder in the reference's GPT-5.5 layout: checksums, the pool's validation, skills.
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../test/cleanup.js";
import { POOL_GAMES, writePoolFixture } from "../../test/fakes/pool-fixture.js";
import { readPool, skillTitle } from "./pool.js";

const poolDir = tempDirsAfterEach("spade-pool-");
const emptyDir = tempDirsAfterEach("spade-pool-empty-");
function fixture(): string {
  return writePoolFixture(poolDir());
}

describe("readPool", () => {
  it("keeps the games the pool's validation passed, with the manifest's ids and skills, checksums verified", () => {
    const root = fixture();
    const pool = readPool(root);
    expect(pool.programs.map((p) => [p.id, p.file, p.skill])).toEqual([
      ["pool-game_000000", "game_000000.py", "Logical Deduction"],
      ["pool-game_000001", "game_000001.py", "Pattern Recognition"],
    ]);
    expect(pool.programs[0]?.source).toBe(POOL_GAMES[0].source);
    expect(pool.excluded).toEqual(["game_000002.py"]);
    // Three lines of checksums.sha256; the manifest's sha256 of the same files are not counted twice.
    expect(pool.verified).toBe(3);
    expect(readPool(join(root, "games")).programs).toHaveLength(2);
  });

  it("refuses a pool whose game was edited after its checksum was taken", () => {
    const root = fixture();
    appendFileSync(join(root, "games", "game_000001.py"), "\n# edited\n");
    expect(() => readPool(root)).toThrow(
      expect.objectContaining({
        code: "E_IO",
        message: expect.stringMatching(
          /^env pool: the checksum of games\/game_000001.py does not match \(the pool is damaged/,
        ),
      }),
    );
  });

  it("checks the manifest's sha256 when there is no checksums file", () => {
    const root = fixture();
    rmSync(join(root, "checksums.sha256"));
    expect(readPool(root).verified).toBe(3);
    writeFileSync(join(root, "games", "game_000000.py"), "class XEnv:\n    pass\n");
    expect(() => readPool(root)).toThrow(
      expect.objectContaining({
        code: "E_IO",
        message: expect.stringMatching(
          /^env pool: the checksum of games\/game_000000.py does not match \(/,
        ),
      }),
    );
  });

  it("names what is wrong with a folder that is not a pool", () => {
    const root = fixture();
    expect(() => readPool(join(root, "missing"))).toThrow(
      expect.objectContaining({
        code: "E_IO",
        message: expect.stringMatching(/missing is not a folder \(give the folder/),
      }),
    );
    expect(() => readPool(join(root, "games", ".."))).not.toThrow();
    const empty = emptyDir();
    expect(() => readPool(empty)).toThrow(
      expect.objectContaining({
        code: "E_IO",
        message: expect.stringMatching(/has no games\/ folder \(/),
      }),
    );
    writeFileSync(join(root, "manifest.jsonl"), "{not json\n");
    expect(() => readPool(root)).toThrow(
      expect.objectContaining({
        code: "E_IO",
        message: expect.stringMatching(/manifest.jsonl line 1 is not JSON \(/),
      }),
    );
  });

  it("turns the manifest's skills into the project's names", () => {
    expect(skillTitle("mathematical_reasoning")).toBe("Mathematical Reasoning");
    expect(skillTitle("Spatial Reasoning")).toBe("Spatial Reasoning");
  });
});
