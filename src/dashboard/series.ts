/**
 * @module dashboard/series
 * The overview's charts: per completed step, the metrics the loop stored (valid-design rate, pool,
 * regret, success, losses, tokens), the designer samples' reward and advantage means, unhinted
 * success per skill, and episodes per second from `metrics.jsonl` (the store keeps no clock).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { num, parseOrNull } from "./queries.js";
import { withRunDb } from "./store-read.js";

type Row = Record<string, unknown>;

/** One chart: a title, its series' labels, and one value (or null) per step for each. */
export interface Chart {
  id: string;
  title: string;
  labels: string[];
  /** `valuesBySeries[i][j]`: series i at `steps[j]`. */
  valuesBySeries: Array<Array<number | null>>;
}

/** The overview's charts of one run, over its completed steps. */
export interface RunSeries {
  steps: number[];
  charts: Chart[];
}

/** Seconds per step from `metrics.jsonl` (the store keeps no clock), by step. */
function secondsByStep(dir: string): Map<number, number> {
  const out = new Map<number, number>();
  const path = join(dir, "metrics.jsonl");
  if (!existsSync(path)) return out;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    try {
      const m = JSON.parse(line) as Row;
      const step = num(m.step);
      const seconds = num(m.seconds);
      if (step !== null && seconds !== null) out.set(step, seconds);
    } catch {
      // A line being written, or a damaged one: timing is left out for that step.
    }
  }
  return out;
}

/** Per-step series of the run in `dir` (see `RunSeries`). */
export function runSeries(dir: string): RunSeries {
  const seconds = secondsByStep(dir);
  return withRunDb(dir, (db) => {
    const rows = db
      .prepare("SELECT step, metrics FROM steps WHERE status = 'done' ORDER BY step")
      .all() as Row[];
    const steps = rows.map((r) => Number(r.step));
    const metrics = rows.map((r) => parseOrNull<Row>(r.metrics) ?? {});
    const designer = new Map<number, { reward: number; advantage: number }>();
    for (const r of db
      .prepare(
        "SELECT step, AVG(reward) AS reward, AVG(advantage) AS advantage FROM samples WHERE role = 'designer' GROUP BY step",
      )
      .all() as Row[]) {
      designer.set(Number(r.step), { reward: Number(r.reward), advantage: Number(r.advantage) });
    }
    const bySkill = db
      .prepare(
        `SELECT ep.step AS step, env.skill AS skill, AVG(ep.success) AS rate FROM episodes ep JOIN environments env ON env.id = ep.env_id
         WHERE ep.hinted = 0 AND ep.failure IS NULL GROUP BY ep.step, env.skill ORDER BY env.skill`,
      )
      .all() as Row[];
    const skills = [...new Set(bySkill.map((r) => String(r.skill)))];
    const skillRate = new Map(
      bySkill.map((r) => [`${String(r.step)}/${String(r.skill)}`, Number(r.rate)]),
    );
    const train = (m: Row, key: string) => num((m.train as Row | undefined)?.[key]);
    const series = (fn: (m: Row, step: number) => number | null) =>
      metrics.map((m, i) => fn(m, steps[i] as number));
    const charts: Chart[] = [
      {
        id: "valid-rate",
        title: "valid-design rate",
        labels: ["valid / slots"],
        valuesBySeries: [
          series((m) =>
            num(m.designSlots) ? (num(m.designsValid) ?? 0) / (m.designSlots as number) : null,
          ),
        ],
      },
      {
        id: "pool",
        title: "pool size",
        labels: ["environments"],
        valuesBySeries: [series((m) => num(m.poolSize))],
      },
      {
        id: "regret",
        title: "mean regret",
        labels: ["regret"],
        valuesBySeries: [series((m) => num(m.meanRegret))],
      },
      {
        id: "success",
        title: "agent success",
        labels: ["unhinted", "hinted"],
        valuesBySeries: [series((m) => num(m.agentSuccess)), series((m) => num(m.hintedSuccess))],
      },
      {
        id: "designer-reward",
        title: "designer reward",
        labels: ["raw (mean)", "advantage (mean)"],
        valuesBySeries: [
          series((m, s) => num(m.meanDesignerReward) ?? designer.get(s)?.reward ?? null),
          series((_, s) => designer.get(s)?.advantage ?? null),
        ],
      },
      {
        id: "loss",
        title: "training loss",
        labels: ["loss"],
        valuesBySeries: [series((m) => train(m, "loss"))],
      },
      {
        id: "log-ratio",
        title: "log-ratio (sampler vs learner)",
        labels: ["agent", "designer"],
        valuesBySeries: [
          series((m) => train(m, "agentLogRatio:mean")),
          series((m) => train(m, "designerLogRatio:mean")),
        ],
      },
      {
        id: "eps",
        title: "episodes per second",
        labels: ["episodes/s"],
        valuesBySeries: [
          series((m, s) => {
            const sec = seconds.get(s);
            return sec && num(m.episodes) !== null ? (m.episodes as number) / sec : null;
          }),
        ],
      },
      {
        id: "tokens",
        title: "trained tokens",
        labels: ["tokens"],
        valuesBySeries: [series((m) => train(m, "trainedTokens"))],
      },
      {
        id: "skill-success",
        title: "unhinted success per skill",
        labels: skills,
        valuesBySeries: skills.map((skill) =>
          steps.map((s) => skillRate.get(`${s}/${skill}`) ?? null),
        ),
      },
    ];
    return { steps, charts };
  });
}
