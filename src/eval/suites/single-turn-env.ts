/**
 * @module eval/suites/single-turn-env
 * The native `Env` of a held-out item: `reset` shows the question, the one `step` grades the
 * action (reward 1 if correct, else 0) and terminates. Evaluation thus runs through the same
 * rollout code as training.
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

type State = "new" | "ready" | "done" | "closed";

/** A single-turn environment over one item. */
export class SingleTurnEnv implements Env {
  readonly meta: EnvMeta;
  private state: State = "new";

  constructor(private readonly item: ItemSpec) {
    this.meta = {
      name: `eval-${item.suite}`,
      skill: SKILLS[item.suite],
      description: DESCRIPTIONS[item.suite],
      maxTurns: 1,
      tools: [],
    };
  }

  private ensureOpen(): void {
    if (this.state === "closed")
      throw new SpadeError("E_ENV_CONTRACT", `${this.item.id}: environment used after close()`);
  }

  /** Shows the question; the seed does not matter (one fixed item). */
  async reset(_seed: number): Promise<ResetResult> {
    this.ensureOpen();
    this.state = "ready";
    return { observation: this.item.prompt, info: { suite: this.item.suite, id: this.item.id } };
  }

  /** Grades the one action. Throws E_ENV_CONTRACT before `reset` or after the episode ended. */
  async step(action: Action): Promise<StepResult> {
    this.ensureOpen();
    if (this.state !== "ready") {
      throw new SpadeError(
        "E_ENV_CONTRACT",
        `${this.item.id}: step() ${this.state === "new" ? "before reset()" : "after the episode ended"}`,
      );
    }
    this.state = "done";
    const grade = await this.item.grade(action);
    return {
      observation: grade.correct ? "Correct." : "Incorrect.",
      reward: grade.correct ? 1 : 0,
      terminated: true,
      truncated: false,
      info: { suite: this.item.suite, id: this.item.id, correct: grade.correct, ...grade.info },
    };
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

  async close(): Promise<void> {
    this.state = "closed";
  }
}

/** Turns item data into an `EvalItem` whose environments are `SingleTurnEnv`s. */
export function toEvalItem(spec: ItemSpec): EvalItem {
  return { ...spec, createEnv: () => new SingleTurnEnv(spec) };
}

/** A hint made from a reference, within the contract's 2,000 characters. */
export function referenceHint(prefix: string, reference: string): string {
  const text = `${prefix}${reference}`;
  return text.length <= 2000 ? text : `${text.slice(0, 1997)}...`;
}
