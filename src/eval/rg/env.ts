/**
 * @module eval/rg/env
 * One reasoning-gym hard-split dataset as a native `Env`: `reset(e)` shows episode e's problem in
 * the reference's prompt, the one `step` is graded by the dataset's own `score_answer` through the
 * worker (reward 1 for a full score, the reference's win, else 0) and ends the episode.
 */
import { SpadeError } from "../../errors.js";
import { makeAction, type Action, type ResetResult } from "../../env/index.js";
import { clipHint, type Graded, OneStepEnv } from "../episode.js";
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

/** An environment over one dataset; each episode seed is one problem. The worker is shared. */
export class RgEnv extends OneStepEnv {
  private problem: RgProblem | null = null;
  private episode = -1;

  constructor(
    private readonly dataset: RgDataset,
    private readonly worker: RgService,
  ) {
    const name = `rg-${dataset.name.replace(/_/g, "-")}-hard`;
    super(name, {
      name,
      skill: SKILLS[dataset.category],
      description: `reasoning-gym ${dataset.name} (hard configuration), graded by its score_answer.`,
      maxTurns: RG_SETTINGS.maxTurns,
    });
  }

  /** The problem of episode `seed` (the reference's `env.reset(seed=episode)`). */
  protected async start(seed: number): Promise<ResetResult> {
    this.problem = await this.worker.generate(this.dataset.name, this.dataset.config, seed);
    this.episode = seed;
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

  /** Grades the answer with the dataset's score_answer. */
  protected async grade(action: Action): Promise<Graded> {
    const graded = await this.worker.score(
      this.dataset.name,
      this.dataset.config,
      this.episode,
      action.text,
    );
    const win = graded.score >= RG_WIN_SCORE;
    const { score, extracted } = graded;
    return { correct: win, info: { dataset: this.dataset.name, score, extracted, win } };
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
    return clipHint(`The answer is: ${this.reference()}`);
  }

  /** The reference answer in `<answer>` tags. */
  async solve(): Promise<Action> {
    this.ensureOpen();
    return makeAction(rgOracleText(this.reference()));
  }
}
