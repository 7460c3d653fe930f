/**
 * @module eval/rg/env
 * One reasoning-gym hard-split dataset as a native `Env`: `reset(e)` shows episode e's problem in
 * the reference's prompt, the one `step` is graded by the dataset's own `score_answer` through the
 * worker (reward 1 for a full score, the reference's win, else 0) and ends the episode.
 */
import { SpadeError } from "../../errors.js";
import {
  makeAction,
  type Action,
  type Env,
  type EnvMeta,
  type ResetResult,
  type StepResult,
} from "../../env/index.js";
import { RG_SETTINGS, rgPrompt, type RgDataset } from "./split.js";
import type { RgProblem, RgService } from "./worker.js";

/** A score counts as a win from here on (the reference's `reward >= 1.0 - 1e-9`). */
export const RG_WIN_SCORE = 1 - 1e-9;

const SKILLS: Record<RgDataset["category"], string> = {
  math: "Mathematical Reasoning",
  algorithmic: "Pattern Recognition",
  cognition: "Spatial Reasoning",
  logic: "Logical Deduction",
};

/** The oracle's answer text for a reference answer. */
export function rgOracleText(reference: string): string {
  return `<answer>${reference}</answer>`;
}

/** An environment over one dataset; each episode seed is one problem. */
export class RgEnv implements Env {
  readonly meta: EnvMeta;
  private problem: RgProblem | null = null;
  private episode = -1;
  private done = false;
  private closed = false;

  constructor(
    private readonly dataset: RgDataset,
    private readonly worker: RgService,
  ) {
    this.meta = {
      name: `rg-${dataset.name.replace(/_/g, "-")}-hard`,
      skill: SKILLS[dataset.category],
      description: `reasoning-gym ${dataset.name} (hard configuration), graded by its score_answer.`,
      maxTurns: RG_SETTINGS.maxTurns,
      tools: [],
    };
  }

  private ensureOpen(): void {
    if (this.closed)
      throw new SpadeError("E_ENV_CONTRACT", `${this.meta.name}: environment used after close()`);
  }

  /** The problem of episode `seed` (the reference's `env.reset(seed=episode)`). */
  async reset(seed: number): Promise<ResetResult> {
    this.ensureOpen();
    this.problem = await this.worker.generate(this.dataset.name, this.dataset.config, seed);
    this.episode = seed;
    this.done = false;
    return {
      observation: rgPrompt(this.problem.question),
      info: {
        dataset: this.dataset.name,
        category: this.dataset.category,
        episode: seed,
        index: this.problem.index,
      },
    };
  }

  /** Grades the answer and ends the episode. */
  async step(action: Action): Promise<StepResult> {
    this.ensureOpen();
    if (!this.problem || this.done) {
      throw new SpadeError(
        "E_ENV_CONTRACT",
        `${this.meta.name}: step() ${this.problem ? "after the episode ended" : "before reset()"}`,
      );
    }
    this.done = true;
    const graded = await this.worker.score(
      this.dataset.name,
      this.dataset.config,
      this.episode,
      action.text,
    );
    const win = graded.score >= RG_WIN_SCORE;
    return {
      observation: win ? "Correct." : "Incorrect.",
      reward: win ? 1 : 0,
      terminated: true,
      truncated: false,
      info: { dataset: this.dataset.name, score: graded.score, extracted: graded.extracted, win },
    };
  }

  private reference(): string {
    if (!this.problem)
      throw new SpadeError("E_ENV_CONTRACT", `${this.meta.name}: hint()/solve() before reset()`);
    if (this.problem.reference === null) {
      throw new SpadeError(
        "E_ENV_CONTRACT",
        `${this.meta.name}: episode ${this.episode} has no reference answer`,
        {
          nextStep:
            "this dataset's entries carry none and no builder exists (worker.py reference_answer)",
        },
      );
    }
    return this.problem.reference;
  }

  /** The reference answer, within the contract's 2,000 characters. */
  async hint(): Promise<string> {
    this.ensureOpen();
    const text = `The answer is: ${this.reference()}`;
    return text.length <= 2000 ? text : `${text.slice(0, 1997)}...`;
  }

  /** The reference answer in `<answer>` tags. */
  async solve(): Promise<Action> {
    this.ensureOpen();
    return makeAction(rgOracleText(this.reference()));
  }

  /** The worker is shared and outlives the environment. */
  async close(): Promise<void> {
    this.closed = true;
  }
}
