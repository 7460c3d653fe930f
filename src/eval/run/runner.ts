/**
 * @module eval/run/runner
 * The shared evaluation runner: K episodes per item through `runEpisode`, at most C in flight,
 * one fresh environment per episode, a results file per item as soon as its K samples are done,
 * `--resume` from the files present (but items a sample of which the model server failed, which
 * say nothing of the model), and clean stopping on cancellation (finished items kept).
 */
import { describeError, isSpadeError, SpadeError } from "../../errors.js";
import type { Env, JsonObject } from "../../env/index.js";
import { episodeTranscript, runEpisode, type Agent, type Episode } from "../../rollout/index.js";
import { prepareOutDir, serverFailedItem, writeItemResult } from "./results.js";
import { itemAccuracy } from "./summary.js";
import type { EvalTask, ItemResult, RunInfo, SampleRecord } from "./types.js";

/** What an agent factory learns about the episode it makes an agent for. */
export interface EvalAgentContext<T extends EvalTask> {
  task: T;
  sample: number;
  /** The run's cancellation signal; pass it to the agent's requests. */
  signal: AbortSignal;
}

/** Progress after an item finished. */
export interface EvalProgress {
  /** Items finished, resumed ones included. */
  itemsDone: number;
  itemsTotal: number;
  /** Mean accuracy of the finished items. */
  accuracy: number;
  /** Failed samples among the finished items. */
  failedSamples: number;
}

/** Settings of `runEval`. */
export interface RunEvalOptions<T extends EvalTask> {
  tasks: readonly T[];
  /** A fresh agent per episode (chat agents keep the conversation). */
  makeAgent: (context: EvalAgentContext<T>) => Agent;
  /** What is run; `info.samples` is K. */
  info: RunInfo;
  /** Most episodes in flight (and so environments open) at once. */
  concurrency: number;
  /** The output folder (see `results.ts`). */
  outDir: string;
  /** Skip items whose results file exists. Default false (then the folder must hold none). */
  resume?: boolean;
  /** Benchmark-specific scores of a finished episode, read before its environment closes. */
  metrics?: (context: { task: T; env: Env; episode: Episode }) => JsonObject;
  /** Called after each item's results file is written (progress on stderr, for instance). */
  onItem?: (item: ItemResult, progress: EvalProgress) => void;
  /** Stops the run: no new episode starts, running ones end at their next turn, unfinished items are not written. */
  signal?: AbortSignal;
}

/** The outcome of `runEval`. */
export interface EvalRun {
  /** Finished items (resumed ones included), in task order. */
  items: ItemResult[];
  /** Items taken from existing results files. */
  resumed: number;
  /** Tasks in the run. */
  total: number;
  /** True when the run was cancelled before every item finished. */
  interrupted: boolean;
}

/** The JSON record of an episode. */
export function sampleRecord(sample: number, episode: Episode, metrics: JsonObject): SampleRecord {
  const transcript = episodeTranscript(episode, { messages: true });
  return {
    sample,
    seed: episode.seed,
    return: episode.return,
    success: episode.success,
    turns: episode.turns,
    failure: episode.failure,
    failureStage: episode.failureStage,
    failureCode: episode.failureCode,
    metrics,
    transcript: transcript as unknown as JsonObject,
  };
}

/** A sample whose environment could not be opened. */
function openFailure(sample: number, err: unknown): SampleRecord {
  return {
    sample,
    seed: sample,
    return: 0,
    success: false,
    turns: 0,
    failure: `open: ${describeError(err)}`,
    failureStage: "open",
    failureCode: isSpadeError(err) ? err.code : null,
    metrics: {},
    transcript: {},
  };
}

/**
 * Runs every task's K samples (episode seed = sample index). Item files are written as items
 * finish; the run resolves with the finished items, or `interrupted` when cancelled.
 */
export async function runEval<T extends EvalTask>(options: RunEvalOptions<T>): Promise<EvalRun> {
  const { tasks, info, concurrency, outDir } = options;
  const samples = info.samples;
  if (!Number.isInteger(samples) || samples < 1)
    throw new SpadeError("E_CONFIG", `samples must be an integer >= 1 (got ${samples})`);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new SpadeError("E_CONFIG", `concurrency must be an integer >= 1 (got ${concurrency})`);
  const ids = new Set<string>();
  for (const t of tasks) {
    if (ids.has(t.id)) throw new SpadeError("E_CONFIG", `two tasks share the id ${t.id}`);
    ids.add(t.id);
  }
  const existing = await prepareOutDir(outDir, info, options.resume ?? false);
  const finished = new Map<string, ItemResult>();
  for (const task of tasks) {
    const old = existing.get(task.id);
    if (!old) continue;
    if (old.samples.length !== samples) {
      throw new SpadeError(
        "E_CONFIG",
        `--resume: item ${task.id} has ${old.samples.length} samples, not ${samples}`,
        { nextStep: "resume with the same --samples" },
      );
    }
    if (serverFailedItem(old)) continue; // played again
    finished.set(task.id, old);
  }
  const resumed = finished.size;

  const controller = new AbortController();
  const forward = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener("abort", forward, { once: true });
  const signal = controller.signal;

  const pending = tasks.filter((t) => !finished.has(t.id));
  const jobs = pending.flatMap((task) =>
    Array.from({ length: samples }, (_, sample) => ({ task, sample })),
  );
  const recordsById = new Map<string, SampleRecord[]>();
  let next = 0;

  const progress = (): EvalProgress => {
    const done = [...finished.values()];
    return {
      itemsDone: done.length,
      itemsTotal: tasks.length,
      accuracy: done.length === 0 ? 0 : done.reduce((s, i) => s + i.accuracy, 0) / done.length,
      failedSamples: done.reduce(
        (n, i) => n + i.samples.filter((s) => s.failure !== null).length,
        0,
      ),
    };
  };

  /** Plays one sample; null when it was cut short by cancellation. */
  const play = async (task: T, sample: number): Promise<SampleRecord | null> => {
    let env: Env;
    try {
      env = await task.open();
    } catch (err) {
      return openFailure(sample, err);
    }
    try {
      let agent: Agent;
      try {
        agent = options.makeAgent({ task, sample, signal });
      } catch (err) {
        agent = async () => {
          throw err; // recorded as the episode's agent failure
        };
      }
      const episode = await runEpisode(env, agent, { seed: sample, signal });
      if (signal.aborted && episode.failureCode === "E_CANCELLED") return null;
      return sampleRecord(sample, episode, options.metrics?.({ task, env, episode }) ?? {});
    } finally {
      await env.close().catch(() => {});
    }
  };

  const worker = async () => {
    while (!signal.aborted && next < jobs.length) {
      const { task, sample } = jobs[next++] as { task: T; sample: number };
      const record = await play(task, sample);
      if (record === null) continue;
      const records = recordsById.get(task.id) ?? [];
      records.push(record);
      recordsById.set(task.id, records);
      if (records.length < samples) continue;
      records.sort((a, b) => a.sample - b.sample);
      const item: ItemResult = {
        id: task.id,
        group: task.group,
        samples: records,
        accuracy: itemAccuracy(records),
      };
      await writeItemResult(outDir, item);
      finished.set(task.id, item);
      options.onItem?.(item, progress());
    }
  };

  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, Math.max(1, jobs.length)) }, worker),
    );
  } finally {
    options.signal?.removeEventListener("abort", forward);
  }
  const items = tasks.flatMap((t) => finished.get(t.id) ?? []);
  return { items, resumed, total: tasks.length, interrupted: items.length < tasks.length };
}
