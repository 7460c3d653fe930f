/**
 * @module cli/runs
 * `spade runs show DIR`: what a run produced: its environments (one row per design slot, valid
 * or not, plus library environments played) with their language, regret, win rate and designer reward, and the
 * metrics of every step (with `agentSamples`, `designerSamples` and the `designerScale` used).
 */
import { defineCommand } from "citty";
import { exportTensorboard } from "../dashboard/index.js";
import { SpadeError } from "../errors.js";
import { designRef } from "../loop/index.js";
import { RunStore } from "../store/index.js";
import { jsonArg, printJson, runDirArg } from "./common.js";

/** One row of `environments`. */
export interface RunEnvironmentRow {
  id: string | null;
  step: number;
  slot: number | null;
  name: string | null;
  skill: string;
  /** The program's language (`javascript`, `python`, `openenv`); null for a slot with no valid design. */
  language: string | null;
  valid: boolean;
  source: "designer" | "library";
  plays: number;
  /** Unhinted success rate over the window of plays. */
  winRate: number | null;
  regret: number | null;
  /** The raw designer reward, before centring and scaling. */
  designerReward: number | null;
  /** What the designer sample was trained with (centred and scaled). */
  designerAdvantage: number | null;
}

/** Reads a run's summary. */
export function summarizeRun(dir: string) {
  const store = RunStore.open(dir, "read");
  try {
    const samples = new Map(
      store
        .samples()
        .filter((s) => s.role === "designer")
        .map((s) => [s.ref, s]),
    );
    const envs = new Map(store.environments().map((e) => [e.id, e]));
    const rows: RunEnvironmentRow[] = [];
    const slots = new Map<string, ReturnType<RunStore["designs"]>>();
    for (const d of store.designs()) {
      const key = `${d.step}/${d.slot}`;
      slots.set(key, [...(slots.get(key) ?? []), d]);
    }
    for (const attempts of slots.values()) {
      const first = attempts[0] as (typeof attempts)[number];
      const accepted = attempts.find((d) => d.envId !== null);
      const env = accepted?.envId ? envs.get(accepted.envId) : undefined;
      const trainable = attempts.find((d) => d.trainable);
      const sample = trainable
        ? samples.get(designRef(trainable.step, trainable.slot, trainable.seq))
        : undefined;
      rows.push({
        id: env?.id ?? null,
        step: first.step,
        slot: first.slot,
        name: env?.name ?? null,
        skill: first.skill,
        language: env?.language ?? null,
        valid: env !== undefined,
        source: "designer",
        plays: env?.stats.plays ?? 0,
        winRate: env?.stats.winRate ?? null,
        regret: env?.stats.regret ?? null,
        designerReward: sample?.reward ?? null,
        designerAdvantage: sample?.advantage ?? null,
      });
    }
    for (const env of envs.values()) {
      if (env.source !== "library") continue;
      rows.push({
        id: env.id,
        step: env.createdStep,
        slot: null,
        name: env.name,
        skill: env.skill,
        language: env.language ?? null,
        valid: true,
        source: "library",
        plays: env.stats.plays,
        winRate: env.stats.winRate,
        regret: env.stats.regret,
        designerReward: null,
        designerAdvantage: null,
      });
    }
    const config = JSON.parse(store.getMeta("config") ?? "null") as unknown;
    return {
      steps: store.doneSteps(),
      config,
      environments: rows,
      metrics: store
        .steps()
        .filter((s) => s.status === "done")
        .map((s) => s.metrics),
    };
  } finally {
    store.close();
  }
}

const fmt = (x: number | null) => (x === null ? "-" : x.toFixed(3));

const show = defineCommand({
  meta: {
    name: "show",
    description: "Summarise a run: environments, regret, win rates, designer rewards, metrics",
  },
  args: {
    dir: runDirArg,
    json: jsonArg,
  },
  async run({ args }) {
    const summary = summarizeRun(args.dir);
    if (args.json) return printJson(summary);
    process.stdout.write(
      `${args.dir}: ${summary.steps} steps done, ${summary.environments.filter((e) => e.valid && e.source === "designer").length} valid designs of ${summary.environments.filter((e) => e.source === "designer").length}\n`,
    );
    process.stdout.write(
      `${"step/slot".padEnd(10)} ${"name".padEnd(28)} ${"skill".padEnd(24)} ${"lang".padEnd(10)} ${"plays".padStart(5)} ${"winRate".padStart(8)} ${"regret".padStart(8)} ${"reward".padStart(8)} ${"advantage".padStart(9)}\n`,
    );
    for (const e of summary.environments) {
      const where = e.source === "library" ? "library" : `${e.step}/${e.slot}`;
      process.stdout.write(
        `${where.padEnd(10)} ${(e.name ?? "(invalid)").padEnd(28)} ${e.skill.padEnd(24)} ${(e.language ?? "-").padEnd(10)} ${String(e.plays).padStart(5)} ${fmt(e.winRate).padStart(8)} ${fmt(e.regret).padStart(8)} ${fmt(e.designerReward).padStart(8)} ${fmt(e.designerAdvantage).padStart(9)}\n`,
      );
    }
    // Per step, the numbers of the designer's scale: min(50, agentSamples / designerSamples x R).
    process.stdout.write(
      `\n${"step".padEnd(6)} ${"agentSamples".padStart(12)} ${"designerSamples".padStart(15)} ${"designerScale".padStart(13)}\n`,
    );
    for (const m of summary.metrics as Array<Record<string, unknown> | null>) {
      if (!m) continue;
      const num = (key: string) => (typeof m[key] === "number" ? String(m[key]) : "-");
      process.stdout.write(
        `${num("step").padEnd(6)} ${num("agentSamples").padStart(12)} ${num("designerSamples").padStart(15)} ${num("designerScale").padStart(13)}\n`,
      );
    }
  },
});

const exportRun = defineCommand({
  meta: {
    name: "export",
    description:
      "Export a run's per-step scalars and sample transcripts for a tracker: --to tensorboard OUT",
  },
  args: {
    dir: runDirArg,
    out: {
      type: "positional",
      description: "folder to write to (TensorBoard: spade writes a new event file in it)",
      required: true,
    },
    to: { type: "string", description: "format: tensorboard", required: true },
  },
  async run({ args }) {
    if (args.to !== "tensorboard") {
      throw new SpadeError(
        "E_CONFIG",
        `--to must be tensorboard (got ${JSON.stringify(args.to)})`,
        { nextStep: "use --to tensorboard and open the folder with `tensorboard --logdir OUT`" },
      );
    }
    const result = exportTensorboard(args.dir, args.out, Date.now());
    process.stdout.write(
      `exported ${result.steps} steps (${result.scalars} scalars, ${result.texts} transcripts) to ${result.path}\n`,
    );
  },
});

/** `spade runs ...` */
export const runsCommand = defineCommand({
  meta: { name: "runs", description: "Inspect runs" },
  subCommands: { show, export: exportRun },
});
