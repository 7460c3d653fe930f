/**
 * @module dashboard/export-run
 * `spade runs export DIR --to tensorboard OUT`: a run's per-step scalars (every number of each
 * completed step's metrics, as `spade run --log tensorboard:DIR` logs them) and, per step, the
 * first unhinted and first hinted episode as text, written to a new TensorBoard event file, whole
 * or not at all (a full disk removes what was written).
 */
import type { Json } from "../env/index.js";
import { COMMAND_READ, withRunDb } from "./store-read.js";
import { EventFileWriter, stepScalars } from "./tensorboard.js";

/** What an export wrote. */
export interface ExportResult {
  path: string;
  steps: number;
  scalars: number;
  texts: number;
}

/** A stored transcript as Markdown text (TensorBoard's text plugin renders Markdown). */
export function transcriptText(transcript: Json, header: string): string {
  const t = (transcript ?? {}) as {
    firstObservation?: string;
    steps?: Array<{
      action?: { text?: string; toolCalls?: unknown[] };
      observation?: string;
      reward?: number;
    }>;
  };
  const block = (text: string) => `    ${text.replace(/\n/g, "\n    ")}`; // indented: shown as code, never as markup
  const lines = [header, "", "observation:", "", block(t.firstObservation ?? "")];
  (t.steps ?? []).forEach((s, i) => {
    lines.push("", `turn ${i + 1} (reward ${s.reward ?? 0}):`, "", block(s.action?.text ?? ""));
    if (s.action?.toolCalls?.length)
      lines.push("", block(`tool calls: ${JSON.stringify(s.action.toolCalls)}`));
    lines.push("", block(s.observation ?? ""));
  });
  return lines.join("\n");
}

/** Writes the run in `dir` as TensorBoard events into `outDir`; `nowMs` stamps the events. */
export function exportTensorboard(dir: string, outDir: string, nowMs: number): ExportResult {
  const { steps, samples } = withRunDb(
    dir,
    (db) => {
      const rows = db
        .prepare("SELECT step, metrics FROM steps WHERE status = 'done' ORDER BY step")
        .all() as Array<{ step: number; metrics: string | null }>;
      // Per step and hint flag, the first finished episode in key order.
      const episodes = db
        .prepare(
          `SELECT step, env_id, hinted, return, transcript FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY step, hinted ORDER BY env_id, idx) AS n
       FROM episodes WHERE failure IS NULL) WHERE n = 1 ORDER BY step, hinted`,
        )
        .all() as Array<{
        step: number;
        env_id: string;
        hinted: number;
        return: number;
        transcript: string;
      }>;
      return { steps: rows, samples: episodes };
    },
    COMMAND_READ,
  );
  const writer = EventFileWriter.create(outDir, nowMs);
  let scalars = 0;
  let texts = 0;
  try {
    for (const row of steps) {
      const values = stepScalars(
        row.metrics === null ? {} : (JSON.parse(row.metrics) as Record<string, unknown>),
      );
      scalars += values.length;
      writer.write(row.step, values, nowMs);
    }
    for (const e of samples) {
      const kind = e.hinted === 1 ? "hinted" : "unhinted";
      writer.write(
        e.step,
        [
          {
            tag: `transcripts/${kind}`,
            text: transcriptText(
              JSON.parse(e.transcript) as Json,
              `${kind} play of ${e.env_id} at step ${e.step}: return ${e.return}`,
            ),
          },
        ],
        nowMs,
      );
      texts++;
    }
    writer.close();
  } catch (err) {
    // A cut file would read as a shorter run beside the one the next export writes.
    writer.discard();
    throw err;
  }
  return { path: writer.path, steps: steps.length, scalars, texts };
}
