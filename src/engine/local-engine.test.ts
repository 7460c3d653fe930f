// The engine's ready lines read from its stdout: whole lines only (a line cut between chunks is
// not taken half), and bounded memory however long the engine logs to stdout. The real engine is
// tested in test/engine/; here the launcher is a node script (a test double).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileTempDir } from "../../test/cleanup.js";
import { MAX_READY_LINE_CHARS, ReadyLines, startLocalEngine } from "./local-engine.js";

describe("ReadyLines", () => {
  it("takes both lines whole, in either order, across chunks", () => {
    const lines = new ReadyLines();
    const fed = ["loading\nSPADE_ENGINE_URL=http://127.0.0.1:9\nSPADE_ENGINE_MODEL=Qwen/Qw", "en3"];
    expect(fed.map((text) => lines.feed(Buffer.from(text)))).toEqual([false, false]);
    expect(lines.feed(Buffer.from("\n"))).toBe(true);
    expect([lines.url, lines.model]).toEqual(["http://127.0.0.1:9", "Qwen/Qwen3"]);
  });

  it("keeps at most MAX_READY_LINE_CHARS of stdout however much comes without a newline", () => {
    const lines = new ReadyLines();
    const mib = Buffer.alloc(1024 * 1024, "x");
    for (let i = 0; i < 16; i++) lines.feed(mib);
    expect(lines.bufferedChars).toBe(MAX_READY_LINE_CHARS);
    expect(lines.feed(Buffer.from("\nSPADE_ENGINE_MODEL=m\nSPADE_ENGINE_URL=http://h\n"))).toBe(
      true,
    );
    expect([lines.bufferedChars, lines.url, lines.model]).toEqual([0, "http://h", "m"]);
  });
});

describe("startLocalEngine", () => {
  it("waits for the model line to end before it is ready", async () => {
    const dir = fileTempDir("spade-engine-");
    const launcher = join(dir, "launcher.mjs");
    // TEST DOUBLE: a launcher whose model line arrives in two writes, then stays up.
    writeFileSync(
      launcher,
      `process.stdout.write("SPADE_ENGINE_URL=http://127.0.0.1:9\\nSPADE_ENGINE_MODEL=Qwen/Qw");
setTimeout(() => process.stdout.write("en3\\n"), 50);
setInterval(() => {}, 1000);`,
    );
    const engine = await startLocalEngine({
      python: process.execPath,
      launcher,
      baseModel: "Qwen/Qwen3",
      workDir: join(dir, "work"),
    });
    try {
      expect([engine.url, engine.baseModel]).toEqual(["http://127.0.0.1:9", "Qwen/Qwen3"]);
    } finally {
      await engine.stop(1000);
    }
  });
});
