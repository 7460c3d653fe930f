/**
 * @module cli/run
 * `spade run`: self-play (design, play, score, train) with live progress, resumable. Every
 * configuration key is also a flag (`designsPerStep` -> `--designs-per-step`).
 */
import { defineCommand, type ArgsDef } from "citty";
import { setMaxListeners } from "node:events";
import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  rmdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import {
  buildConfig,
  CONFIG_SCHEMA,
  configFlagHelp,
  envVar,
  flagName,
  preset,
  readConfigFile,
  resumeConfig,
  type ConfigKey,
  type RunConfig,
} from "../config/index.js";
import { EventFileWriter, stepScalars } from "../dashboard/index.js";
import { isSpadeError, SpadeError } from "../errors.js";
import {
  formatWork,
  METRICS_FILE,
  runSelfPlay,
  watchedLoopPolicy,
  type LoopDeps,
} from "../loop/index.js";
import { OutageBreaker } from "../policy/index.js";
import { killInTransaction, RunStore, STORE_FILE } from "../store/index.js";
import { logTail } from "../engine/index.js";
import { interruptSignal } from "./interrupt.js";
import { progressLine } from "./progress.js";
import { runBackends, type RunBackends } from "./run-engine.js";

const DEFAULTS = CONFIG_SCHEMA.parse({}) as Record<string, unknown>;
const KEYS = Object.keys(CONFIG_SCHEMA.shape);

/** One flag per configuration key; booleans also take `--no-<flag>`. No citty defaults, so unset flags stay unset. */
function configArgs(): ArgsDef {
  const args: ArgsDef = {};
  for (const key of KEYS) {
    args[flagName(key)] = {
      type: typeof DEFAULTS[key] === "boolean" ? "boolean" : "string",
      description: configFlagHelp(key as ConfigKey),
    };
  }
  return args;
}

/** The config keys given as flags. */
function flagLayer(args: Record<string, unknown>): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  for (const key of KEYS) {
    const value = args[flagName(key)];
    if (value !== undefined) layer[key] = value;
  }
  return layer;
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
}

/** The stored configuration of a run being resumed, with the changes allowed (`resumeConfig`) applied. */
function resumedConfig(dir: string, flags: Record<string, unknown>): RunConfig {
  const store = RunStore.open(dir, "read");
  const stored = store.getMeta("config");
  store.close();
  if (!stored)
    throw new SpadeError("E_CONFIG", `${dir} holds no configuration`, {
      nextStep: "the run was never started: start it again without --resume",
    });
  return resumeConfig(JSON.parse(stored) as RunConfig, flags);
}

/**
 * The breaker that stops the run when the model server fails `outageAfter` requests in a row;
 * null when it is 0. Runs stored before the setting existed get its default.
 */
function outageBreaker(config: RunConfig, dir: string): OutageBreaker | null {
  const after = config.outageAfter ?? (DEFAULTS.outageAfter as number);
  if (after === 0) return null;
  return new OutageBreaker({
    after,
    nextStep: `once the model server answers again (spade doctor checks it), continue with: spade run --resume ${dir}${config.policy === "openai" ? " (a server that moved: add --base-url URL)" : ""}`,
  });
}

/**
 * Checks what a new run reads before its store is created, so a bad setting leaves no folder
 * behind: the corpus (other than "default" and "none") must be a readable file or folder; E_IO
 * naming the setting otherwise.
 */
export function checkStart(config: RunConfig): void {
  if (config.corpus === "default" || config.corpus === "none") return;
  try {
    const info = statSync(config.corpus);
    if (!info.isFile() && !info.isDirectory())
      throw Object.assign(new Error("not a file or folder"), { code: "EINVAL" });
    accessSync(config.corpus, constants.R_OK);
  } catch (cause) {
    const why =
      (cause as { code?: unknown }).code === "ENOENT"
        ? "does not exist"
        : `cannot be read (${(cause as Error).message})`;
    throw new SpadeError("E_IO", `the corpus ${config.corpus} (--corpus) ${why}`, {
      cause,
      nextStep:
        'give a readable .jsonl, .jsonl.gz or .parquet file, a folder of them or of .txt/.md files, or "default"',
    });
  }
}

/**
 * After a new run failed: removes what it created when no step began (the store, its lock, the
 * metrics file, the folder if it made it and it is empty), so the same --out can be used again.
 */
function removeFailedStart(dir: string, folderExisted: boolean): void {
  try {
    if (!RunStore.discardUnstarted(dir)) return;
    rmSync(join(dir, METRICS_FILE), { force: true });
    if (!folderExisted && readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    return; // locked by another process, or unwritable: leave it; the run's own error is what matters
  }
  process.stderr.write(
    `spade run: the run never began a step; removed what it created in ${dir}\n`,
  );
}

/** `spade run` */
export const runCommand = defineCommand({
  meta: {
    name: "run",
    description: "Run SPADE self-play: the model designs environments and learns to play them",
  },
  args: {
    config: { type: "string", description: "JSON file of settings (flags override it)" },
    preset: {
      type: "string",
      description:
        "named settings: local (a short self-play run on the default local GGUF model, for a laptop), quick (a few small steps), reference (the reference's games recipe), reference-tool-use (its tool-use recipe)",
    },
    "print-config": {
      type: "boolean",
      description: "print the resolved settings as JSON on stdout and exit without running",
    },
    out: {
      type: "string",
      description: "folder for the run's store and metrics (default: runs/run-<time>)",
    },
    resume: { type: "string", description: "continue the run in this folder where it stopped" },
    log: {
      type: "string",
      description:
        "also log each step's scalars to a tracker as the run goes: tensorboard:DIR (TensorBoard event files in DIR)",
    },
    ...configArgs(),
  },
  async run({ args }) {
    const flags = flagLayer(args as Record<string, unknown>);
    const resume = typeof args.resume === "string" && args.resume !== "";
    const dir = resume
      ? (args.resume as string)
      : ((args.out as string | undefined) ?? join("runs", `run-${timestamp(new Date())}`));
    const layers = [
      preset(args.preset as string | undefined),
      args.config ? readConfigFile(args.config as string) : undefined,
      flags,
    ];
    let config = resume ? resumedConfig(dir, flags) : buildConfig(layers);
    // A local GGUF model is inference only: --no-train is implied unless train was set explicitly.
    if (
      !resume &&
      config.policy === "gguf" &&
      config.train &&
      !layers.some((layer) => layer?.train !== undefined)
    )
      config = buildConfig([...layers, { train: false }]);
    if (args["print-config"] === true) {
      process.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
      return;
    }
    if (!resume) checkStart(config);
    const folderExisted = existsSync(dir);
    const storeExisted = existsSync(join(dir, STORE_FILE));
    const sink = metricsSink(args.log as string | undefined, dir);
    const interrupt = interruptSignal(
      "spade run: stopping (a second Ctrl-C ends at once); nothing finished is lost",
    );
    // The run stops on Ctrl-C, at once when an engine this run started dies, and when the model
    // server has failed --outage-after requests in a row.
    const engineDeath = new AbortController();
    const outage = outageBreaker(config, dir);
    const signal = AbortSignal.any([
      interrupt.signal,
      engineDeath.signal,
      ...(outage ? [outage.signal] : []),
    ]);
    setMaxListeners(0, signal); // every request in flight listens to it
    let backends: RunBackends;
    try {
      backends = await runBackends(config, process.env, { dir, signal });
    } catch (err) {
      interrupt.dispose();
      sink?.close();
      if (interrupt.signal.aborted) {
        process.stderr.write("spade run: stopped before the run began\n");
        process.exitCode = 130;
        return;
      }
      throw err;
    }
    let engineDied: SpadeError | null = null;
    void backends.engine?.exited.then(({ code, signal: killedBy }) => {
      if (backends.engine?.stopping) return;
      engineDied = new SpadeError(
        "E_ENGINE_START",
        `the local engine died during the run (${killedBy ?? `exit code ${code}`}); the last lines of its log:\n${logTail(backends.engine?.log() ?? "")}`,
        {
          nextStep: `continue with: spade run --resume ${dir}`,
        },
      );
      engineDeath.abort();
    });
    process.stderr.write(
      `spade run: ${resume ? "resuming" : "writing"} ${dir} (${config.steps} steps, ${config.designer === "on" ? `${config.designsPerStep} designs every ${config.regenerateEvery} steps` : "fixed library environments"}${backends.trainer ? `, training on ${backends.engine ? `the local engine ${backends.engine.url}` : config.engine}` : ""})\n`,
    );
    // Designing and playing inside a step: a live line on a terminal, a plain line every 10 s in logs.
    const live = progressLine(process.stderr);
    try {
      await runSelfPlay(
        dir,
        config,
        {
          policy: outage ? watchedLoopPolicy(backends.policy, outage) : backends.policy,
          trainer: backends.trainer,
          // The step's summary ends the live line of its designing and playing (on a TTY).
          progress: (line) => live.done(line),
          onWork: (work) => live.update(formatWork(work, config.steps)),
          now: () => Date.now(),
          signal,
          onStep: sink?.onStep,
          ...faultInjection(),
        },
        { resume },
      );
    } catch (err) {
      live.clear();
      if (engineDied) throw engineDied;
      if (outage?.error) throw outage.error;
      if (interrupt.signal.aborted) {
        process.stderr.write(
          `spade run: stopped; nothing finished is lost. Continue with: spade run --resume ${dir}\n`,
        );
        process.exitCode = 130;
        return;
      }
      // A run whose folder went away (E_NOT_FOUND) has nothing left there to remove: what the
      // folder holds now may be another run's.
      if (
        !resume &&
        !storeExisted &&
        !isSpadeError(err, "E_NOT_FOUND") &&
        existsSync(join(dir, STORE_FILE))
      )
        removeFailedStart(dir, folderExisted);
      throw err;
    } finally {
      sink?.close();
      await backends.close();
      interrupt.dispose();
    }
    process.stderr.write(
      `spade run: done. Results are in ${dir} (run.sqlite, metrics.jsonl). Inspect with: spade runs show ${dir}\n`,
    );
  },
});

/**
 * The `--log` sink: `tensorboard:DIR` writes each step's scalars to a new event file in DIR. A
 * full disk under it stops the run after the step was stored, so it says to resume `runDir`.
 */
function metricsSink(
  value: string | undefined,
  runDir: string,
): { onStep: (metrics: Record<string, unknown>) => void; close: () => void } | null {
  if (value === undefined || value === "") return null;
  const m = /^tensorboard:(.+)$/.exec(value);
  if (!m)
    throw new SpadeError(
      "E_CONFIG",
      `--log must be tensorboard:DIR (got ${JSON.stringify(value)})`,
      { nextStep: "give --log tensorboard:DIR, then run tensorboard --logdir DIR" },
    );
  const writer = EventFileWriter.create(
    m[1] as string,
    Date.now(),
    `every finished step is stored: free space and continue with spade run --resume ${runDir}`,
  );
  return {
    onStep: (metrics) => writer.write(Number(metrics.step), stepScalars(metrics), Date.now()),
    close: () => writer.close(),
  };
}

/** FAULT INJECTION for resume tests: SPADE_TEST_KILL_IN_TRANSACTION=n kills the process inside its n-th store transaction. */
function faultInjection(): Pick<LoopDeps, "openStore"> {
  const value = envVar("SPADE_TEST_KILL_IN_TRANSACTION");
  if (!value) return {};
  return { openStore: (dir, mode) => killInTransaction(RunStore.open(dir, mode), Number(value)) };
}
