/**
 * @module bench/big-run
 * Synthetic run stores for the dashboard's load benchmark and load test: `steps` completed steps
 * with metrics of the shape the loop writes, `environments` designed environments spread over
 * them, and `episodes` stored episodes (paired unhinted/hinted plays with short transcripts).
 * Values come from a seeded generator, so every build writes the same store.
 */
import { mulberry32 } from "../random/index.js";
import { EMPTY_STATS, RunStore } from "../store/index.js";

/** Sizes of a synthetic run. */
export interface BigRunSize {
  steps: number;
  environments: number;
  episodes: number;
}

const SKILLS = [
  "Logical Deduction",
  "Pattern Recognition",
  "Strategic Planning",
  "Spatial Reasoning",
  "Causal Inference",
  "Optimization",
];

/** Writes a synthetic run of `size` into `dir` (which must not hold a run) and returns the store's path. */
export function writeBigRun(dir: string, size: BigRunSize, seed = 1): string {
  const random = mulberry32(seed);
  const store = RunStore.open(dir, "create");
  try {
    store.setMeta(
      "config",
      JSON.stringify({
        steps: size.steps,
        designer: "on",
        mode: "games",
        model: "synthetic",
        seed,
      }),
    );
    store.transaction(() => {
      const envIds: string[] = [];
      for (let i = 0; i < size.environments; i++) {
        const step = Math.floor((i * size.steps) / Math.max(1, size.environments));
        const id = `d${step}-${i}`;
        envIds.push(id);
        const skill = SKILLS[i % SKILLS.length] as string;
        const code = `class Environment { static meta = { name: "env-${i}", skill: "${skill}", description: "synthetic", maxTurns: 4, tools: [] }; reset(seed) { return { observation: "o", info: {} }; } step(a) { return { observation: "o", reward: 1, terminated: true, truncated: false, info: {} }; } hint() { return "h"; } solve() { return { text: "x" }; } }`;
        store.insertEnvironment({
          id,
          name: `env-${i}`,
          skill,
          description: "synthetic",
          code,
          meta: { name: `env-${i}`, skill, description: "synthetic", maxTurns: 4, tools: [] },
          source: "designer",
          createdStep: step,
          slot: i,
          docId: null,
          hint: null,
          stats: { ...EMPTY_STATS, plays: 4, winRate: random(), regret: random() - 0.2 },
        });
      }
      for (let i = 0; i < size.episodes; i++) {
        const step = Math.floor((i * size.steps) / size.episodes);
        const hinted = i % 2 === 1;
        const success = random() < (hinted ? 0.7 : 0.4);
        store.insertEpisode({
          step,
          envId: envIds[i % envIds.length] as string,
          idx: i,
          seed: Math.floor(i / 2),
          hinted,
          return: success ? 1 : 0,
          success,
          turns: 2,
          failure: null,
          failureCode: null,
          rewards: [0, success ? 1 : 0],
          transcript: {
            firstObservation: hinted ? "Find it.\n\nHINT: it is 4" : "Find it.",
            outcome: "terminated",
            steps: [
              {
                action: { text: "\\boxed{3}", answer: "3", toolCalls: [] },
                observation: "No.",
                reward: 0,
                terminated: false,
                truncated: false,
                toolResults: [],
              },
            ],
          },
          trace: null,
        });
      }
      for (let step = 0; step < size.steps; step++) {
        store.beginStep(step);
        store.completeStep(step, {
          step,
          regenerated: step % 4 === 0,
          designSlots: step % 4 === 0 ? 24 : 0,
          designsValid: step % 4 === 0 ? Math.floor(random() * 24) : 0,
          designCompletions: 24,
          poolSize: 24,
          playsPerEnv: 8,
          episodes: Math.floor(size.episodes / size.steps),
          failedEpisodes: 0,
          overflowEpisodes: 0,
          maskedTurns: 0,
          agentSuccess: random(),
          hintedSuccess: random(),
          meanReturn: random(),
          meanRegret: random() - 0.2,
          agentSamples: 192,
          designerSamples: 24,
          designerScale: 4,
          agentSamplesFilled: 0,
          agentSamplesTrimmed: 0,
          meanDesignerReward: random(),
          train: {
            loss: 1 / (1 + step),
            trainedTokens: 100_000 + step,
            "agentLogRatio:mean": (random() - 0.5) / 100,
            "designerLogRatio:mean": (random() - 0.5) / 100,
          },
        });
      }
    });
    return store.path;
  } finally {
    store.close();
  }
}
