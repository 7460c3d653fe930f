/**
 * @module designer/skills
 * The skills a designer writes environments for (games and tool use), each with a description and
 * a few directions, and the task types of tool-use designs. Descriptions are ours, informed by the
 * reference's skill tables; the designer prompt quotes them.
 */
import { SpadeError } from "../errors.js";

/** Whether a skill is trained with games/puzzles (`\boxed{}` actions) or with function tools. */
export type SkillKind = "game" | "tool-use";

/** One skill the designer can be asked to train. */
export interface SkillInfo {
  /** The name written into `meta.skill`, e.g. `Logical Deduction`. */
  name: string;
  kind: SkillKind;
  /** A coarse family, for people reading runs. */
  category: string;
  /** What the skill asks of the agent, in one sentence; shown to the designer. */
  description: string;
  /** Directions an environment for this skill could take; shown as a starting point, not a menu. */
  ideas: readonly string[];
}

const game = (name: string, category: string, description: string, ideas: string[]): SkillInfo =>
  Object.freeze({ name, kind: "game", category, description, ideas: Object.freeze(ideas) });
const tool = (name: string, category: string, description: string, ideas: string[]): SkillInfo =>
  Object.freeze({ name, kind: "tool-use", category, description, ideas: Object.freeze(ideas) });

/** The game skills (the reference's nine cognitive skills), in the reference's order. */
export const GAME_SKILLS: readonly SkillInfo[] = Object.freeze([
  game(
    "Pattern Recognition",
    "core reasoning",
    "Finding the rule behind sequences, grids, strings or codes from examples, and applying it to new cases.",
    [
      "probe a hidden transformation with chosen inputs, then predict its output on fresh ones",
      "decode a substitution or shifting cipher from partial reveals earned turn by turn",
      "find a piecewise rule (different on odd and even positions, rows and columns) behind a grid",
    ],
  ),
  game(
    "Mathematical Reasoning",
    "analytical",
    "Setting up and carrying out exact calculations: arithmetic, algebra, counting, probability, modular and geometric reasoning.",
    [
      "steer a number from a start value to a target with a limited set of operations",
      "trade or budget across rounds where each decision needs an exact computation",
      "uncover the unknowns of a small system of equations by choosing which measurements to take",
    ],
  ),
  game(
    "Logical Deduction",
    "core reasoning",
    "Drawing sure conclusions from premises, constraints and feedback, and ruling out what cannot be.",
    [
      "identify a hidden code, culprit or arrangement from feedback on queries",
      "interview characters who follow truth-telling rules and work out who is who",
      "fill a constraint grid by asking yes/no questions with a limited budget",
    ],
  ),
  game(
    "Strategic Planning",
    "executive",
    "Choosing sequences of moves toward a goal when actions have delayed consequences and resources are limited.",
    [
      "a two-player take-away or placement game against a fixed opponent policy",
      "allocate a budget over rounds of build, defend or expand decisions",
      "route goods through a network with capacities and deadlines",
    ],
  ),
  game(
    "Spatial Reasoning",
    "visual",
    "Tracking positions, directions, shapes and movement in grids or maps described in text.",
    [
      "explore a partly hidden maze and reach an exit with limited moves",
      "push boxes or slide tiles into a target arrangement",
      "navigate by relative directions after rotations and reflections",
    ],
  ),
  game(
    "Causal Inference",
    "core reasoning",
    "Working out which causes produce which effects by intervening, observing and testing hypotheses.",
    [
      "toggle switches and read lamps to recover a hidden wiring",
      "diagnose a faulty component by testing parts of a machine in sequence",
      "choose experiments on a small system to find which variable drives the outcome",
    ],
  ),
  game(
    "Memory Recall",
    "cognitive",
    "Keeping track of information revealed over many turns and using it exactly later.",
    [
      "turn over cards and match pairs that were seen turns ago",
      "hear statements across turns, then answer questions or spot a contradiction",
      "items are revealed one at a time; later, reproduce or use exactly what was shown",
    ],
  ),
  game(
    "Optimization",
    "executive",
    "Finding the best feasible choice under constraints: packing, scheduling, routing, allocation.",
    [
      "pack items arriving one by one into a limited capacity to maximize value",
      "schedule jobs on machines across turns to meet deadlines at least cost",
      "improve a plan by local moves until no better one exists",
    ],
  ),
  game(
    "Language Understanding",
    "language",
    "Reading text closely: reference, meaning, inference, word structure, and following instructions written in prose.",
    [
      "read a story in chapters and answer questions that depend on who did what",
      "solve word puzzles (anagrams, ladders, clue grids) under feedback",
      "follow a set of written instructions whose wording carries the constraints",
    ],
  ),
]);

/** The tool-use skills (the reference's six), in the reference's order. */
export const TOOL_USE_SKILLS: readonly SkillInfo[] = Object.freeze([
  tool(
    "API Orchestration",
    "stateful operations",
    "Chaining several calls that change state, feeding each call's result into the next.",
    [
      "search, reserve, pay for and confirm a booking",
      "check a balance, move funds between accounts, confirm the new balances",
      "list stock, place an order, attach details, generate the invoice",
    ],
  ),
  tool(
    "Data Retrieval",
    "query then act",
    "Finding the right records with query tools, combining them, and reporting or acting on exactly what was found.",
    [
      "look a customer up by name, read their orders, report the most recent one",
      "filter a table by criteria across pages and compute an aggregate",
      "read settings, find the ones out of policy, report them",
    ],
  ),
  tool(
    "State Modification",
    "mutation chains",
    "Bringing a system into a requested state through ordered changes whose preconditions depend on earlier changes.",
    [
      "create a user, grant permissions, add them to groups, verify membership",
      "reorganize folders and files into a target layout",
      "configure devices so a requested scene holds and nothing else changes",
    ],
  ),
  tool(
    "Error Recovery",
    "robustness",
    "Noticing failed calls, reading the error, checking state and retrying correctly instead of repeating the mistake.",
    [
      "a call fails with a not-found error; search for the right id and retry",
      "an operation is refused until a precondition is met; meet it and retry",
      "verify state before a destructive call and handle conflicts",
    ],
  ),
  tool(
    "Tool Selection",
    "decision making",
    "Picking the right tool among similar ones for the current situation, and not calling tools that do not fit.",
    [
      "choose between create and update depending on whether a record exists",
      "pick the converter or processor that matches an item's type",
      "decide whether to act locally or navigate first, from the current location",
    ],
  ),
  tool(
    "Multi-Step Workflows",
    "sequential planning",
    "Carrying out long ordered procedures where later steps depend on the results of earlier ones.",
    [
      "order processing: search, check stock, reserve, pay, confirm, notify",
      "a data pipeline: connect, query, filter, transform, write, validate",
      "a release: build, test, approve, deploy, verify, record",
    ],
  ),
]);

/** Every known skill, games first. */
export const ALL_SKILLS: readonly SkillInfo[] = Object.freeze([...GAME_SKILLS, ...TOOL_USE_SKILLS]);

/** The skill named `name` (exact match), or undefined. */
export function findSkill(name: string): SkillInfo | undefined {
  return ALL_SKILLS.find((s) => s.name === name);
}

/** The skill named `name`; E_CONFIG naming the known skills when there is none. */
export function getSkill(name: string): SkillInfo {
  const skill = findSkill(name);
  if (!skill) {
    throw new SpadeError("E_CONFIG", `unknown skill ${JSON.stringify(name)}`, {
      nextStep: `use one of: ${ALL_SKILLS.map((s) => s.name).join(", ")} (or build a SkillInfo for a custom skill)`,
    });
  }
  return skill;
}

/** The shapes a tool-use task can take (the reference's four, after BFCL and ACEBench categories). */
export type ToolUseTaskType =
  | "execute"
  | "read-then-write"
  | "missing-parameter"
  | "irrelevant-request";

/** A task type and what it asks of the design. */
export interface TaskTypeInfo {
  name: ToolUseTaskType;
  /** The instruction shown to the designer. */
  description: string;
}

/** The tool-use task types with the instruction each adds to the designer prompt. */
export const TOOL_USE_TASK_TYPES: readonly TaskTypeInfo[] = Object.freeze([
  {
    name: "execute",
    description:
      "The user states what they want; the agent gets there by calling the right tools in the right order. Success is judged on the final state of the system, not on the text of the agent's reply.",
  },
  {
    name: "read-then-write",
    description:
      "At least one request can only be carried out after reading state and deciding from what was read (for example 'every order over $100', 'each line past its data cap'). Success checks that exactly the records meeting the condition were changed.",
  },
  {
    name: "missing-parameter",
    description:
      "At least one request leaves out a value the write needs (an id, an amount, a date) that the agent must look up with a read tool first. A write with a guessed or made-up value must fail with an error result, so guessing cannot succeed.",
  },
  {
    name: "irrelevant-request",
    description:
      "Exactly one request cannot be served by any of the tools (it is outside the system's domain). Include a tool `decline_request` with one required string argument `reason`; that request counts as handled only when the agent declines it, and no other tool may plausibly serve it.",
  },
] satisfies TaskTypeInfo[]);

/** The task type called `name`; E_CONFIG for an unknown one. */
export function getTaskType(name: ToolUseTaskType): TaskTypeInfo {
  const info = TOOL_USE_TASK_TYPES.find((t) => t.name === name);
  if (!info) {
    throw new SpadeError("E_CONFIG", `unknown tool-use task type ${JSON.stringify(name)}`, {
      nextStep: `use one of: ${TOOL_USE_TASK_TYPES.map((t) => t.name).join(", ")}`,
    });
  }
  return info;
}

/**
 * The reference's weighting of task types (3 : 2 : 1 : 1), as a fixed cycle so that a run's
 * choice is deterministic: `taskTypeForSlot(i)` is entry `i mod 7`.
 */
export const TASK_TYPE_ROTATION: readonly ToolUseTaskType[] = Object.freeze([
  "execute",
  "read-then-write",
  "execute",
  "missing-parameter",
  "execute",
  "read-then-write",
  "irrelevant-request",
]);

/** The task type of design slot `slotIndex` (a non-negative integer) under `TASK_TYPE_ROTATION`. */
export function taskTypeForSlot(slotIndex: number): ToolUseTaskType {
  if (!Number.isInteger(slotIndex) || slotIndex < 0) {
    throw new SpadeError("E_CONFIG", `slot index must be a non-negative integer, got ${slotIndex}`);
  }
  return TASK_TYPE_ROTATION[slotIndex % TASK_TYPE_ROTATION.length] as ToolUseTaskType;
}
