/**
 * @module eval/tau2/roles
 * Who plays each role of a tau2 run: the endpoints as given, a model SPADE serves on its shim,
 * or the scripted players (oracle or idle agent, scripted user) on a shim of their own.
 */
import { readFileSync } from "node:fs";
import { SpadeError } from "../../errors.js";
import {
  idleAgentTurn,
  oracleAgentTurn,
  scriptedUserTurn,
  type Tau2GroundTruth,
} from "./scripted.js";
import type { Tau2Agent, Tau2Endpoint } from "./settings.js";
import { startShim, type Shim, type ShimHandler } from "./shim.js";

const SCRIPTED_USER = "spade-scripted-user";

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

/** The three roles' endpoints, and the shim that serves any of them (closed by the caller). */
export interface Tau2Roles {
  shim: Shim | null;
  agent: Tau2Endpoint;
  user: Tau2Endpoint;
  /** null for scripted agents, which run without a judge. */
  judge: Tau2Endpoint | null;
}

/**
 * The roles for `agent`: the user and judge default to the agent's endpoint; scripted agents get
 * the scripted user and no judge. The oracle reads the ground truth from `groundTruthFile`.
 */
export async function startRoles(
  agent: Tau2Agent,
  user: Tau2Endpoint | undefined,
  judge: Tau2Endpoint | undefined,
  groundTruthFile: string,
): Promise<Tau2Roles> {
  if (agent.kind === "model") {
    const endpoint = agent.endpoint;
    return { shim: null, agent: endpoint, user: user ?? endpoint, judge: judge ?? endpoint };
  }
  if (agent.kind === "served") {
    const shim = await startShim({ [agent.model]: agent.handler });
    const endpoint = { baseURL: shim.baseURL, model: agent.model };
    return { shim, agent: endpoint, user: user ?? endpoint, judge: judge ?? endpoint };
  }
  const served = await scriptedShim(agent.kind, groundTruthFile);
  const shim = served.shim;
  return {
    shim,
    agent: { baseURL: shim.baseURL, model: served.agentModel },
    user: user ?? { baseURL: shim.baseURL, model: SCRIPTED_USER },
    judge: null,
  };
}
