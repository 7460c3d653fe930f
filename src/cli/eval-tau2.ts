/**
 * @module cli/eval-tau2
 * `spade eval tau2 --domain retail|airline|telecom|all --policy openai|oracle|idle`: tau2-bench
 * through its own harness; pass^1 per domain as tau2 computes it, a results file per task.
 */
import { defineCommand } from "citty";
import { join } from "node:path";
import { shownDefault } from "../config/index.js";
import { SpadeError } from "../errors.js";
import { writeJsonAtomic } from "../eval/run/index.js";
import { ChatRenderer, tinkerSampler } from "../policy/index.js";
import {
  runTau2,
  tau2ScoresOf,
  tokenSamplerHandler,
  TAU2_DEFAULTS,
  TAU2_DOMAINS,
  type Tau2Agent,
  type Tau2Domain,
  type Tau2Endpoint,
  type Tau2Settings,
} from "../eval/tau2/index.js";
import { EXIT_NOTHING_PLAYED, intFlag, jsonArg, nothingPlayedLine, printJson } from "./common.js";
import { visibleText } from "./guest-text.js";
import { defaultOutDir, withEvalInterrupt } from "./eval-run.js";
import { evalOutageBreaker, policyArgs, requestFlags } from "./policy.js";

const TAU2_POLICIES = ["openai", "tinker", "oracle", "idle"] as const;

const TAU2_OUTAGE_NEXT_STEP =
  "finished tasks are kept: once the model servers answer again (spade doctor --base-url URL --model NAME checks one), rerun with --resume and the same --out; tasks a trial of which a server failed are played again";

function numberFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max = Infinity,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min || n > max) {
    throw new SpadeError(
      "E_CONFIG",
      `--${name} must be a number in [${min}, ${max}] (got ${JSON.stringify(value)})`,
    );
  }
  return n;
}

/** The domains `--domain` names. */
export function domainsFlag(value: string | undefined): Tau2Domain[] {
  const v = value ?? "all";
  if (v === "all") return [...TAU2_DOMAINS];
  const out: Tau2Domain[] = [];
  for (const part of v.split(",")) {
    if (!(TAU2_DOMAINS as readonly string[]).includes(part)) {
      throw new SpadeError(
        "E_CONFIG",
        `--domain must be ${TAU2_DOMAINS.join(", ")} or all (got ${JSON.stringify(part)})`,
      );
    }
    out.push(part as Tau2Domain);
  }
  return out;
}

function endpointFrom(
  role: string,
  baseURL: string | undefined,
  model: string | undefined,
  apiKeyEnv: string | undefined,
): Tau2Endpoint | undefined {
  if (baseURL === undefined && model === undefined) return undefined;
  if (!baseURL || !model)
    throw new SpadeError(
      "E_CONFIG",
      `the ${role} model needs both --${role}-base-url and --${role}-model`,
      { nextStep: `add the missing one, or drop both to use the agent's server` },
    );
  return { baseURL, model, apiKey: keyFrom(role, apiKeyEnv) };
}

function keyFrom(role: string, apiKeyEnv: string | undefined): string | undefined {
  if (!apiKeyEnv) return undefined;
  const key = process.env[apiKeyEnv];
  if (!key)
    throw new SpadeError(
      "E_CONFIG",
      `--${role === "agent" ? "" : `${role}-`}api-key-env names ${apiKeyEnv}, which is not set`,
      { nextStep: `export ${apiKeyEnv}=... or drop the flag for a local server` },
    );
  return key;
}

/** `spade eval tau2` */
export const tau2Command = defineCommand({
  meta: {
    name: "tau2",
    description:
      "tau2-bench (retail, airline, telecom) through its own harness: pass^1 per domain as tau2 computes it",
  },
  args: {
    domain: {
      type: "string",
      description: `${TAU2_DOMAINS.join(" | ")} | all (or a comma list)`,
      default: "all",
    },
    policy: {
      type: "string",
      description: `the agent: ${TAU2_POLICIES.join(" | ")} (oracle replays each task's ground-truth actions, idle does nothing; both without a model)`,
      required: true,
    },
    "base-url": {
      type: "string",
      description:
        "the agent's OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 (--policy openai)",
    },
    model: {
      type: "string",
      description: "the agent's model name as the server knows it (--policy openai)",
    },
    engine: policyArgs.engine,
    "base-model": policyArgs["base-model"],
    "model-path": {
      type: "string",
      description:
        "folder with the model's tokenizer.json and tokenizer_config.json (--policy tinker)",
    },
    "api-key-env": {
      type: "string",
      description: "environment variable holding the agent server's API key",
    },
    "user-base-url": {
      type: "string",
      description: "the user simulator's server (default: the agent's)",
    },
    "user-model": {
      type: "string",
      description: "the user simulator's model (default: the agent's)",
    },
    "user-api-key-env": {
      type: "string",
      description: "environment variable holding the user server's API key",
    },
    "judge-base-url": {
      type: "string",
      description: "the NL-assertion judge's server (default: the agent's)",
    },
    "judge-model": {
      type: "string",
      description: "the NL-assertion judge's model (default: the agent's)",
    },
    "judge-api-key-env": {
      type: "string",
      description: "environment variable holding the judge server's API key",
    },
    split: { type: "string", description: "task split", default: TAU2_DEFAULTS.split },
    trials: {
      type: "string",
      description: "trials per task",
      default: String(TAU2_DEFAULTS.trials),
    },
    "max-steps": {
      type: "string",
      description: "most steps per simulation",
      default: String(TAU2_DEFAULTS.maxSteps),
    },
    temperature: {
      type: "string",
      description: "agent temperature",
      default: String(TAU2_DEFAULTS.temperature),
    },
    "top-p": { type: "string", description: "agent top_p", default: String(TAU2_DEFAULTS.topP) },
    "top-k": {
      type: "string",
      description: "agent top_k (sent in the request body, as vLLM and SGLang read it)",
      default: String(TAU2_DEFAULTS.topK),
    },
    "max-tokens": {
      type: "string",
      description: "agent max tokens per answer",
      default: String(TAU2_DEFAULTS.maxTokens),
    },
    concurrency: {
      type: "string",
      description: "simulations in flight at once (tau2's max_concurrency)",
      default: String(TAU2_DEFAULTS.concurrency),
    },
    "outage-after": {
      type: "string",
      description: `simulations failed in a row because a model server failed a call (no connection, an error status of the server's, no answer within 600 s), none scored in between, that stop the run (E_POLICY_UNAVAILABLE); finished tasks are kept; 0: never stop (default: ${shownDefault("outageAfter").text})`,
    },
    limit: { type: "string", description: "only the first N tasks of each domain" },
    out: { type: "string", description: "results folder (default eval-results/tau2/<model>)" },
    resume: {
      type: "boolean",
      description:
        "skip tasks whose results file exists in --out (a task a trial of which the model server failed is played again)",
      default: false,
    },
    json: jsonArg,
  },
  async run({ args }) {
    const domains = domainsFlag(args.domain);
    const policy = String(args.policy);
    let agent: Tau2Agent;
    if (policy === "openai") {
      const endpoint = endpointFrom("agent", args["base-url"], args.model, undefined);
      if (!endpoint)
        throw new SpadeError("E_CONFIG", "--policy openai needs --base-url and --model", {
          nextStep: "add --base-url http://127.0.0.1:8000/v1 --model NAME",
        });
      agent = {
        kind: "model",
        endpoint: { ...endpoint, apiKey: keyFrom("agent", args["api-key-env"]) },
      };
    } else if (policy === "tinker") {
      // Tinker sampling behind SPADE's own OpenAI-compatible shim, so the harness can call it.
      if (args["base-url"] !== undefined && args.engine === undefined) {
        throw new SpadeError(
          "E_CONFIG",
          "--policy tinker takes the engine as --engine URL and its model as --base-model NAME, not --base-url / --model",
          { nextStep: "write --engine URL --base-model NAME (the names spade run uses)" },
        );
      }
      if (!args.engine || !args["base-model"] || !args["model-path"]) {
        throw new SpadeError(
          "E_CONFIG",
          "--policy tinker needs --engine, --base-model and --model-path",
          {
            nextStep:
              "add --engine http://127.0.0.1:8000 --base-model BASE_MODEL --model-path TOKENIZER_FOLDER",
          },
        );
      }
      const renderer = ChatRenderer.fromDir(String(args["model-path"]));
      const sampler = tinkerSampler({
        baseURL: String(args.engine),
        baseModel: String(args["base-model"]),
        apiKeyEnv: args["api-key-env"] || undefined,
        environment: process.env,
      });
      agent = {
        kind: "served",
        model: sampler.model,
        handler: tokenSamplerHandler({
          sampler,
          renderer,
          defaultMaxTokens: TAU2_DEFAULTS.maxTokens,
        }),
      };
    } else if (policy === "oracle" || policy === "idle") {
      agent = { kind: policy };
    } else {
      throw new SpadeError(
        "E_CONFIG",
        `--policy must be one of ${TAU2_POLICIES.join(", ")} for tau2 (got "${policy}")`,
      );
    }
    const settings: Partial<Tau2Settings> = {
      split: String(args.split),
      trials: intFlag("trials", args.trials, 1),
      maxSteps: intFlag("max-steps", args["max-steps"], 1),
      temperature: numberFlag("temperature", args.temperature, TAU2_DEFAULTS.temperature, 0),
      topP: numberFlag("top-p", args["top-p"], TAU2_DEFAULTS.topP, 0, 1),
      topK: intFlag("top-k", args["top-k"], 0),
      maxTokens: intFlag("max-tokens", args["max-tokens"], 1),
      concurrency: intFlag("concurrency", args.concurrency, 1),
    };
    const limit = args.limit === undefined ? undefined : intFlag("limit", args.limit, 1);
    const user = endpointFrom(
      "user",
      args["user-base-url"],
      args["user-model"],
      args["user-api-key-env"],
    );
    const judge = endpointFrom(
      "judge",
      args["judge-base-url"],
      args["judge-model"],
      args["judge-api-key-env"],
    );
    const modelName =
      agent.kind === "model"
        ? agent.endpoint.model
        : agent.kind === "served"
          ? agent.model
          : policy;
    const outDir = args.out ?? defaultOutDir("tau2", modelName);
    const outage = evalOutageBreaker(
      requestFlags({ "outage-after": args["outage-after"] }),
      TAU2_OUTAGE_NEXT_STEP,
    );
    let done = 0;
    // The signal is the run's: the summary is written after the handler is gone, and then a
    // tripped outage breaker fails the command.
    const run = await withEvalInterrupt((interrupt) =>
      runTau2({
        domains,
        agent,
        user,
        judge,
        settings,
        limit,
        outDir,
        resume: args.resume === true,
        signal: outage ? AbortSignal.any([interrupt, outage.signal]) : interrupt,
        outage,
        onProgress: (event) => {
          if (event.event === "tasks")
            process.stderr.write(
              `[tau2] ${event.domain}: ${event.todo.length} of ${event.taskIds.length} task(s) to run\n`,
            );
          if (event.event === "simulation" || event.event === "simulation_error") {
            done += 1;
            if (event.event === "simulation_error")
              process.stderr.write(
                `[tau2] ${event.domain}/${event.taskId}: simulation failed: ${event.message}\n`,
              );
            if (done % 10 === 0) process.stderr.write(`[tau2] ${done} simulation(s) scored\n`);
          }
        },
      }),
    );
    const scores = tau2ScoresOf(run.items);
    const samples = run.items.flatMap((i) => i.samples);
    const failed = samples.filter((s) => s.failure !== null);
    // Every trial failed (a server that never answered, a wrong model name): no score to read.
    const nothingPlayed = samples.length > 0 && failed.length === samples.length;
    const summary = {
      benchmark: "tau2",
      policy,
      model: modelName,
      models: run.models,
      settings: run.settings,
      items: run.items.length,
      total: run.total,
      resumed: run.resumed,
      interrupted: run.interrupted,
      passAt1: Object.fromEntries(Object.entries(scores).map(([d, s]) => [d, s.passAt1])),
      domains: scores,
      nothingPlayed,
      tau2Reports: run.reports,
      out: outDir,
    };
    await writeJsonAtomic(join(outDir, "summary.json"), summary);
    if (args.json) printJson(summary);
    else {
      process.stdout.write(
        `tau2 (${run.settings.split} split, ${run.settings.trials} trial(s)): agent ${run.models.agent}\n`,
      );
      process.stdout.write(
        `  user simulator ${run.models.user}; NL-assertion judge ${run.models.judge ?? "none (scripted players)"}\n`,
      );
      process.stdout.write(
        `domain    tasks  pass^1  failed samples  tau2's own pass^1 (this invocation)\n`,
      );
      for (const domain of domains) {
        const s = scores[domain];
        const report = run.reports.find((r) => r.domain === domain);
        const own = report?.passHatK["1"];
        process.stdout.write(
          `${domain.padEnd(9)} ${String(s?.tasks ?? 0).padStart(5)}  ${s ? s.passAt1.toFixed(3) : "  -  "}  ${String(s?.failedSamples ?? 0).padStart(14)}  ${own === undefined ? "-" : own.toFixed(3)}\n`,
        );
      }
      process.stdout.write(`results in ${outDir}\n`);
      if (nothingPlayed)
        process.stdout.write(
          `${visibleText(nothingPlayedLine("sample", samples.length, failed[0]?.failure ?? null), { oneLine: true })}\n`,
        );
    }
    if (outage?.error) throw outage.error;
    if (run.interrupted) {
      process.stderr.write(
        `spade: interrupted after ${run.items.length}/${run.total} tasks; rerun with --resume --out ${outDir}\n`,
      );
      process.exitCode = 130;
    } else if (nothingPlayed) process.exitCode = EXIT_NOTHING_PLAYED;
  },
});
