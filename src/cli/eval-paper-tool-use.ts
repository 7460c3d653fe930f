/**
 * @module cli/eval-paper-tool-use
 * The columns of `spade eval paper --setting tool-use`: BFCL, the tau2 results of a finished run,
 * and ACEBench (normal+special, agent with a simulated user, overall), with tool_use.yaml's sampling.
 */
import { chatUserSimulator } from "../eval/run/index.js";
import {
  aceAgentSource,
  bfclSource,
  tau2ResultsSource,
  unavailableSource,
  type ColumnSource,
} from "../eval/paper/index.js";
import {
  aceNormalSpecialSource,
  aceOverallSource,
  recordingSource,
  type CellStore,
} from "../eval/paper/acebench-source.js";
import { resolveBfclDataDir } from "../eval/bfcl/index.js";
import type { SamplingParams } from "../policy/index.js";
import { agentOf, qaAgentOf } from "./eval-paper-agents.js";
import { acebenchFolder } from "./eval-acebench.js";
import { bfclSingleRoot } from "./eval-run-bfcl.js";
import { secondModelBackend, type Policy } from "./policy.js";

/**
 * ACEBench settings of the reference (eval_offline/configs/tool_use.yaml): temperature 0.7,
 * top_p 1.0, 16,384 tokens, at most 40 dialogue turns, the user played by a second model.
 */
const ACEBENCH_SAMPLING: SamplingParams = { temperature: 0.7, top_p: 1, max_tokens: 16384 };

/** BFCL (tool_use.yaml bfcl_full): temperature 0.0, one sample per entry. */
const BFCL_SAMPLING: SamplingParams = { temperature: 0 };

/**
 * ACEBench-A: the agent entries played against a simulated user (--user-model at --user-base-url,
 * by default the policy's own model and server), or unavailable when no user model is known.
 */
function aceAgentColumn(
  policy: Policy,
  flags: Record<string, unknown>,
  dataDir: string,
  limit: number | undefined,
): ColumnSource {
  const userModel =
    (flags["user-model"] as string | undefined) ??
    (policy.name === "openai" ? (flags.model as string | undefined) : undefined);
  const userBaseURL =
    (flags["user-base-url"] as string | undefined) ??
    (policy.name === "openai" ? (flags["base-url"] as string | undefined) : undefined);
  const userApiKeyEnv =
    (flags["user-api-key-env"] as string | undefined) ??
    (flags["user-base-url"] === undefined
      ? (flags["api-key-env"] as string | undefined)
      : undefined);
  if (!userModel || !userBaseURL)
    return unavailableSource(
      "acebench-agent",
      ["ACEBench-A"],
      "multi-turn entries need a simulated user: pass --user-model and --user-base-url (or use --policy openai)",
    );
  const userBackend = secondModelBackend(policy, flags, {
    baseURL: userBaseURL,
    model: userModel,
    apiKeyEnv: userApiKeyEnv,
  });
  return aceAgentSource({
    acebenchDir: acebenchFolder(dataDir),
    limit,
    makeAgent: agentOf(policy, ACEBENCH_SAMPLING),
    userFor: (entry) => chatUserSimulator(userBackend, entry),
    settings: {
      source: "spade-rl/spade eval_offline/configs/tool_use.yaml",
      language: "en",
      limit: (flags.limit as string | undefined) ?? null,
      temperature: 0.7,
      top_p: 1,
      max_tokens: 16384,
      userModel,
      referenceUserModel: "gpt-4o",
    },
  });
}

/** The tool-use setting's sources, in column order. */
export function toolUseSources(
  policy: Policy,
  flags: Record<string, unknown>,
  dataDir: string,
  limit: number | undefined,
): ColumnSource[] {
  const aceCells: CellStore = new Map();
  const ace = aceAgentColumn(policy, flags, dataDir, limit);
  return [
    bfclSource({
      multiTurnDir: resolveBfclDataDir({ flag: dataDir, env: {}, cwd: process.cwd() }),
      singleTurnRoot: bfclSingleRoot(flags["bfcl-single-data"] as string | undefined, dataDir),
      makeAgent: agentOf(policy, BFCL_SAMPLING),
      limit,
      settings: {
        source: "spade-rl/spade eval_offline/configs/tool_use.yaml",
        categories: ["non_live", "live", "multi_turn"],
        samples: 1,
        temperature: 0,
        limit: limit ?? null,
      },
    }),
    tau2ResultsSource(flags["tau2-results"] as string | undefined),
    aceNormalSpecialSource({
      acebenchDir: acebenchFolder(dataDir),
      limit,
      makeAgent: qaAgentOf(policy, ACEBENCH_SAMPLING),
      store: aceCells,
      settings: {
        source: "spade-rl/spade eval_offline/configs/tool_use.yaml",
        language: "en",
        categories: "12 normal + 3 special, one sample each",
        limit: limit ?? null,
        temperature: 0.7,
        top_p: 1,
        max_tokens: 16384,
        column: "mean of the categories' accuracies (upstream's eval_main.py per category)",
      },
    }),
    recordingSource(ace, aceCells),
    aceOverallSource(aceCells),
  ];
}
