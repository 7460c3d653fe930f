/**
 * @module cli/eval-paper-games
 * The columns of `spade eval paper --setting games`: AIME 2025/2026, GPQA-Diamond and
 * LiveCodeBench with the reference's sampling (eval_offline/configs/games.yaml), and reasoning-gym.
 */
import {
  lcbItems,
  LCB_SETTINGS,
  loadAime,
  loadGpqa,
  qaPaths,
  qaSource,
  rgSource,
  type ColumnSource,
} from "../eval/paper/index.js";
import { RG_SAMPLING, type RgWorkerPool } from "../eval/rg/index.js";
import {
  LCB_DEFAULT_RELEASE,
  LCB_TIMEOUT_SECONDS,
  loadLiveCodeBench,
  type PythonSandbox,
} from "../eval/suites/code/index.js";
import type { SamplingParams } from "../policy/index.js";
import { agentOf, qaAgentOf } from "./eval-paper-agents.js";
import { datasetsFlag } from "./eval-rg.js";
import type { Policy } from "./policy.js";

/** AIME (eval_offline/configs/games.yaml): 64 samples, temperature 1.0, top_p 0.95, top_k 20, 32,768 tokens. */
const AIME_SAMPLING: SamplingParams = {
  temperature: 1,
  top_p: 0.95,
  max_tokens: 32768,
  ...({ top_k: 20 } as object),
};

/** GPQA-Diamond (games.yaml): 8 samples, temperature 0.7, top_p 0.95, 32,768 tokens. */
const GPQA_SAMPLING: SamplingParams = { temperature: 0.7, top_p: 0.95, max_tokens: 32768 };

/** LiveCodeBench (games.yaml): 1 sample, temperature 0.2, top_p 0.95, 16,384 tokens. */
const LCB_SAMPLING: SamplingParams = {
  temperature: LCB_SETTINGS.temperature,
  top_p: LCB_SETTINGS.top_p,
  max_tokens: LCB_SETTINGS.max_tokens,
};

/**
 * The games setting's sources, in column order; `pool` and `sandbox` start the reasoning-gym
 * workers and the LiveCodeBench sandbox when a source first needs them.
 */
export function gamesSources(
  policy: Policy,
  flags: Record<string, unknown>,
  limit: number | undefined,
  pool: () => RgWorkerPool,
  sandbox: () => Promise<PythonSandbox>,
): ColumnSource[] {
  const lcbRelease = (flags["lcb-release"] as string | undefined) ?? LCB_DEFAULT_RELEASE;
  // The sandbox the LiveCodeBench checks ran in, recorded with their settings.
  let lcbSandbox: PythonSandbox | null = null;
  return [
    ...[2025, 2026].map((year) =>
      qaSource({
        name: `aime-${year}`,
        column: `AIME-${year - 2000}`,
        load: (dir) => loadAime(qaPaths(dir).aime(year), year),
        samples: 64,
        settings: {
          source: "spade-rl/spade eval_offline/configs/games.yaml (aime)",
          samples: 64,
          temperature: 1,
          top_p: 0.95,
          top_k: 20,
          max_tokens: 32768,
          grading: "last \\boxed{} (no nested braces), math equivalence with the label",
          column: "pass@1 over all samples",
        },
        limit,
        makeAgent: qaAgentOf(policy, AIME_SAMPLING),
      }),
    ),
    qaSource({
      name: "gpqa-diamond",
      column: "GPQA-Diamond",
      load: (dir) => loadGpqa(qaPaths(dir).gpqa),
      samples: 8,
      settings: {
        source: "spade-rl/spade eval_offline/configs/games.yaml (gpqa_diamond)",
        samples: 8,
        temperature: 0.7,
        top_p: 0.95,
        max_tokens: 32768,
        grading: "last \\boxed{A-D}, else the first 'answer is X' / 'Answer: X'",
        column: "avg@8",
      },
      limit,
      makeAgent: qaAgentOf(policy, GPQA_SAMPLING),
    }),
    qaSource({
      name: "livecodebench",
      column: "LiveCodeBench",
      load: async (dir) => {
        const problems = await loadLiveCodeBench(qaPaths(dir).livecodebench, lcbRelease);
        lcbSandbox = await sandbox();
        return lcbItems(problems, lcbSandbox);
      },
      samples: LCB_SETTINGS.samples,
      settings: () => ({
        source: "spade-rl/spade eval_offline/configs/games.yaml (livecodebench)",
        release: lcbRelease,
        ...LCB_SETTINGS,
        timeoutSecondsPerTest: LCB_TIMEOUT_SECONDS,
        grading:
          "last ```python block (else the whole answer), every public and private test passes under lcb_runner's rules",
        column: "pass@1 averaged over samples",
        sandbox: lcbSandbox?.confinement() ?? null,
      }),
      limit,
      makeAgent: qaAgentOf(policy, LCB_SAMPLING),
    }),
    rgSource({
      service: pool(),
      makeAgent: agentOf(policy, RG_SAMPLING),
      datasets: datasetsFlag(flags as { datasets?: string }),
      limit,
    }),
  ];
}
