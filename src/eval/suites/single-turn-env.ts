/**
 * @module eval/suites/single-turn-env
 * The native `Env` of a held-out item: `reset` shows the question, the one `step` grades the
 * action (reward 1 if correct, else 0) and terminates. Evaluation thus runs through the same
 * rollout code as training.
 */
import { makeAction, type Action, type ResetResult } from "../../env/index.js";
import { clipHint, type Graded, OneStepEnv } from "../episode.js";
import type { EvalItem, ItemSpec, SuiteName } from "./types.js";

const SKILLS: Record<SuiteName, string> = {
  gsm8k: "Mathematical Reasoning",
  math500: "Mathematical Reasoning",
  humaneval: "Programming",
  mbpp: "Programming",
  bbh: "Logical Deduction",
};

const DESCRIPTIONS: Record<SuiteName, string> = {
  gsm8k: "GSM8K test problem: grade-school arithmetic word problem, answer in \\boxed{}.",
  math500: "MATH-500 problem: competition mathematics, answer in \\boxed{}.",
  humaneval: "HumanEval problem: complete a Python function; graded by running its tests.",
  mbpp: "MBPP problem: write a Python function; graded by running its tests.",
  bbh: "BIG-Bench Hard example: multi-step reasoning, final answer in \\boxed{}.",
};

/** A single-turn environment over one item. */
export class SingleTurnEnv extends OneStepEnv {
  constructor(private readonly item: ItemSpec) {
    const { suite } = item;
    super(item.id, {
      name: `eval-${suite}`,
      skill: SKILLS[suite],
      description: DESCRIPTIONS[suite],
    });
  }

  /** Shows the question; the seed does not matter (one fixed item). */
  protected async start(_seed: number): Promise<ResetResult> {
    return { observation: this.item.prompt, info: { suite: this.item.suite, id: this.item.id } };
  }

  protected async grade(action: Action): Promise<Graded> {
    const { correct, info } = await this.item.grade(action);
    return { correct, info: { suite: this.item.suite, id: this.item.id, correct, ...info } };
  }

  /** The reference as a hint. */
  async hint(): Promise<string> {
    this.ensureOpen();
    return this.item.hint;
  }

  /** The reference written as a model would answer. */
  async solve(): Promise<Action> {
    this.ensureOpen();
    return makeAction(this.item.oracleText);
  }
}

/** Turns item data into an `EvalItem` whose environments are `SingleTurnEnv`s. */
export function toEvalItem(spec: ItemSpec): EvalItem {
  return { ...spec, createEnv: () => new SingleTurnEnv(spec) };
}

/** A hint made from a reference, within the contract's 2,000 characters. */
export function referenceHint(prefix: string, reference: string): string {
  return clipHint(`${prefix}${reference}`);
}
