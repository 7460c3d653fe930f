/**
 * @module designer/prompt
 * The designer prompt: a system and a user message for a chat model, built from the skill, the
 * grounding document, memory references, one environment to avoid and library examples. Games and
 * tool use get different contracts. The prompt is a pure function of its inputs (no sampling).
 */
import { SpadeError } from "../errors.js";
import { DEFAULT_LIMITS, detectProgramLanguage, type SandboxLimits } from "../sandbox/index.js";
import {
  ANSWER_FORMAT,
  GAME_SYSTEM_PROMPT,
  PYTHON_ANSWER_FORMAT,
  PYTHON_GAME_SYSTEM_PROMPT,
  PYTHON_TOOL_USE_SYSTEM_PROMPT,
  TOOL_USE_SYSTEM_PROMPT,
  gameContract,
  pythonGameContract,
  pythonToolUseContract,
  toolUseContract,
} from "./prompt-text.js";
import { findSkill, getTaskType, type SkillInfo, type ToolUseTaskType } from "./skills.js";
import type {
  DesignerMessage,
  ExampleProgram,
  GroundingDocument,
  MemoryReference,
} from "./types.js";

/** Default of `DesignerPromptInput.referenceCodeMaxChars`. */
export const DEFAULT_REFERENCE_CODE_MAX_CHARS = 4000;

/** Everything the designer prompt is built from. */
export interface DesignerPromptInput {
  /** The skill to train; its `kind` picks the game or the tool-use contract. */
  skill: SkillInfo;
  /** The grounding document of this attempt; null for an ungrounded design. */
  document: GroundingDocument | null;
  /** Earlier environments at the edge of the agent's ability ("write something different"). Default none. */
  references?: readonly MemoryReference[];
  /** One earlier environment that was too easy or too hard. Default none. */
  avoid?: MemoryReference | null;
  /** The language the program is to be written in (games and tool use alike). Default `javascript`. */
  language?: "javascript" | "python";
  /** Library programs shown as worked examples (see `pickExamples`). Default none. */
  examples?: readonly ExampleProgram[];
  /** Tool use only: the task type. Default `execute`. */
  taskType?: ToolUseTaskType;
  /** A reference's code is shown when it has at most this many characters. Default 4,000. */
  referenceCodeMaxChars?: number;
  /** The sandbox limits quoted in the rules. Default `DEFAULT_LIMITS`. */
  limits?: SandboxLimits;
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

function fenced(source: string): string {
  return `\`\`\`${detectProgramLanguage(source)}\n${source.trimEnd()}\n\`\`\``;
}

function skillSection(input: DesignerPromptInput): string {
  const { skill } = input;
  const what = skill.kind === "tool-use" ? "a tool-use environment" : "a game environment";
  const ideas = skill.ideas.map((idea) => `- ${idea}`).join("\n");
  let text =
    `Write ${what} that trains the skill **${skill.name}**: ${skill.description}\n\n` +
    `Directions others have taken for this skill (a starting point, not a menu; invent your own freely):\n${ideas}`;
  if (skill.kind === "tool-use") {
    const taskType = getTaskType(input.taskType ?? "execute");
    text += `\n\nTask type: **${taskType.name}**. ${taskType.description}`;
  }
  return text;
}

function documentSection(document: GroundingDocument | null, toolUse: boolean): string {
  if (!document) return "## Grounding\nNo document this time: choose the setting yourself.";
  const use = toolUse
    ? "Build the simulated system in the domain this document belongs to (its entities, records, procedures and vocabulary)."
    : "Take a mechanism, procedure, system, rule set or body of facts from it and make it what the agent works with.";
  return (
    `## Grounding document\n<document id=${JSON.stringify(document.docId)}>\n${document.text.trim()}\n</document>\n\n` +
    `${use} The agent never sees the document, so the environment must explain everything it needs; never mention the document.`
  );
}

function referenceLine(ref: MemoryReference): string {
  return `"${ref.name}" (${ref.skill}): ${ref.description.trim()} Agent win rate ${percent(ref.winRate)}, regret ${ref.regret.toFixed(2)}.`;
}

function referencesSection(
  references: readonly MemoryReference[],
  maxChars: number,
): string | null {
  if (references.length === 0) return null;
  const items = references.map((ref, i) => {
    const code = ref.source && ref.source.length <= maxChars ? `\n${fenced(ref.source)}` : "";
    return `${i + 1}. ${referenceLine(ref)}${code}`;
  });
  return (
    "## Earlier environments: write something different\n" +
    "These environments from earlier rounds sat at the edge of what the agent can do: it won some plays, and the hint " +
    "helped. Yours must differ from them in its mechanism, not only in names and numbers.\n\n" +
    items.join("\n\n")
  );
}

function avoidSection(avoid: MemoryReference | null | undefined): string | null {
  if (!avoid) return null;
  const why =
    avoid.winRate > 0.9
      ? "The agent already wins almost every play, so an environment like it teaches nothing."
      : avoid.winRate < 0.1
        ? "The agent almost never wins it, so an environment like it gives no signal to learn from (too hard, or unclear)."
        : "It did not train the agent well.";
  return `## One to avoid\n${referenceLine(avoid)} ${why} Do not write one like it.`;
}

function examplesSection(examples: readonly ExampleProgram[]): string | null {
  if (examples.length === 0) return null;
  const items = examples.map((ex) => `### ${ex.name} (${ex.skill})\n${fenced(ex.source)}`);
  return (
    "## Worked examples from the library\n" +
    "They show the contract in practice. Do not copy them or their mechanics: a copy is rejected as a duplicate.\n\n" +
    items.join("\n\n")
  );
}

/** The designer conversation for one attempt: a system message and a user message. */
export function buildDesignerPrompt(input: DesignerPromptInput): DesignerMessage[] {
  const maxChars = input.referenceCodeMaxChars ?? DEFAULT_REFERENCE_CODE_MAX_CHARS;
  if (!Number.isFinite(maxChars) || maxChars < 0)
    throw new SpadeError(
      "E_CONFIG",
      `referenceCodeMaxChars must be a non-negative number, got ${maxChars}`,
    );
  const toolUse = input.skill.kind === "tool-use";
  const python = input.language === "python";
  const limits = input.limits ?? DEFAULT_LIMITS;
  const sections = [
    skillSection(input),
    documentSection(input.document, toolUse),
    (python
      ? toolUse
        ? pythonToolUseContract
        : pythonGameContract
      : toolUse
        ? toolUseContract
        : gameContract)(input.skill.name, limits),
    referencesSection(input.references ?? [], maxChars),
    avoidSection(input.avoid),
    // The library is JavaScript: its programs would show a Python designer the wrong contract.
    python ? null : examplesSection(input.examples ?? []),
    python ? PYTHON_ANSWER_FORMAT : ANSWER_FORMAT,
  ].filter((s): s is string => s !== null);
  return [
    {
      role: "system",
      content: python
        ? toolUse
          ? PYTHON_TOOL_USE_SYSTEM_PROMPT
          : PYTHON_GAME_SYSTEM_PROMPT
        : toolUse
          ? TOOL_USE_SYSTEM_PROMPT
          : GAME_SYSTEM_PROMPT,
    },
    { role: "user", content: sections.join("\n\n") },
  ];
}

/** Options of `pickExamples`. */
export interface PickExamplesOptions {
  /** At most this many examples. Default 2. */
  count?: number;
  /** Stop adding examples once their sources would pass this many characters (the first is always kept). Default 24,000. */
  maxTotalChars?: number;
  /** The kind of an example. Default: the kind of its skill in `ALL_SKILLS` (unknown skills match no kind). */
  kindOf?: (example: ExampleProgram) => SkillInfo["kind"] | undefined;
}

/**
 * Library examples for a design of `skill`, deterministically: programs of the same skill first,
 * then of the same kind (game or tool use), each group shortest first, ties by name; at most
 * `count`, within `maxTotalChars`. Programs of the other kind are never picked.
 */
export function pickExamples(
  candidates: readonly ExampleProgram[],
  skill: SkillInfo,
  options: PickExamplesOptions = {},
): ExampleProgram[] {
  const count = options.count ?? 2;
  const kindOf = options.kindOf ?? ((ex: ExampleProgram) => findSkill(ex.skill)?.kind);
  const maxTotalChars = options.maxTotalChars ?? 24_000;
  const rank = (ex: ExampleProgram) =>
    ex.skill === skill.name ? 0 : kindOf(ex) === skill.kind ? 1 : 2;
  const ordered = candidates
    .filter((ex) => rank(ex) < 2)
    .sort(
      (a, b) =>
        rank(a) - rank(b) || a.source.length - b.source.length || a.name.localeCompare(b.name),
    );
  const picked: ExampleProgram[] = [];
  let total = 0;
  for (const ex of ordered) {
    if (picked.length >= count) break;
    if (picked.length > 0 && total + ex.source.length > maxTotalChars) break;
    picked.push(ex);
    total += ex.source.length;
  }
  return picked;
}
