/**
 * @module test/engine/learn-check-main
 * `npm run learn-check`: builds the tiny model, starts the engine, runs the learning check and
 * prints `learn_check: before=<x> after=<y>` (success rates) as its last line. Exit 1 when the
 * rise is not clear (before >= 0.1 or after <= 0.6).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTinyEngineModel, requireEngine, startEngine } from "./engine-server.js";
import { learnCheck } from "./learn-check.js";

requireEngine();
const dir = mkdtempSync(join(tmpdir(), "spade-learn-check-"));
const log = (line: string) => process.stderr.write(`${line}\n`);
try {
  const modelDir = buildTinyEngineModel(join(dir, "tiny"));
  const engine = await startEngine(modelDir, join(dir, "engine"));
  log(`engine ready at ${engine.url} in ${engine.readySeconds.toFixed(1)} s`);
  try {
    const result = await learnCheck({ url: engine.url, modelDir, log });
    log(`learning check: ${result.seconds.toFixed(1)} s, ${result.failedEpisodes} failed episodes`);
    console.log(`learn_check: before=${result.before.toFixed(3)} after=${result.after.toFixed(3)}`);
    if (!(result.before < 0.1 && result.after > 0.6)) process.exitCode = 1;
  } finally {
    await engine.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
