/**
 * @module designer/prompt-text
 * The fixed text of the designer prompt: the environment contract (games and tool use), the rules
 * that make validation pass, and design guidance. Written for our contract (README, DESIGN.md);
 * numbers come from the sandbox limits and the validator so the prompt never disagrees with them.
 */
import { MAX_HINT_CHARS, MAX_TURNS_LIMIT } from "../env/index.js";
import type { SandboxLimits } from "../sandbox/index.js";

/** The system message of game designs written in `language`. */
const gameSystemPrompt = (language: "JavaScript" | "Python") =>
  "You are an expert designer of training environments for language-model agents. You write each environment as one " +
  `self-contained ${language} program that follows the contract you are given exactly, so that it runs in a sandbox and ` +
  "passes automatic validation. You care that the environment is fair, hard to game, and teaches the skill it targets.";

/** The closing instruction of designs fenced as `fence`: how to answer. */
const answerFormat = (fence: "javascript" | "python") =>
  `## Your answer\nThink as much as you need, then give the complete program in one \`\`\`${fence} block. If you write ` +
  "several blocks, only the last one that contains `class Environment` is taken, on its own, so it must be complete.";

/** The system message of game designs. */
export const GAME_SYSTEM_PROMPT = gameSystemPrompt("JavaScript");

/** The system message of tool-use designs written in `language`. */
const toolUseSystemPrompt = (language: "JavaScript" | "Python") =>
  "You are an expert designer of training environments for language-model agents that act through function tools. " +
  `You write each environment as one self-contained ${language} program that simulates a system behind a set of tools ` +
  "and follows the contract you are given exactly, so that it runs in a sandbox and passes automatic validation.";

/** The system message of tool-use designs. */
export const TOOL_USE_SYSTEM_PROMPT = toolUseSystemPrompt("JavaScript");

const GAME_SKELETON = (skill: string) => `\`\`\`javascript
class Environment {
  static meta = {
    name: "short-kebab-name",       // lowercase letters, digits and dashes, at most 64 characters
    skill: ${JSON.stringify(skill)},
    description: "One or two sentences: what the agent must do and how it is judged.",
    maxTurns: 12,                   // the runner ends the episode after this many agent turns
    tools: [],                      // a game has no tools
  };

  reset(seed) {
    // Build a fresh episode using Math.random only (the host seeds it with \`seed\`).
    return { observation: "the rules, the goal, the starting state, and how to answer", info: {} };
  }

  step(action) {
    // action.text: the agent's whole reply. action.answer: the content of its last \\boxed{...}
    // (or <answer>...</answer>), else null. action.toolCalls: always [] in a game.
    return { observation: "what happened, the new state, what can be done next", reward: 0, terminated: false, truncated: false, info: {} };
  }

  hint() { return "privileged help for this episode"; }

  solve() { return { text: "\\\\boxed{...}" }; }   // the oracle's next action from the current state
}
\`\`\``;

const TOOL_SKELETON = (skill: string) => `\`\`\`javascript
class Environment {
  static meta = {
    name: "short-kebab-name",
    skill: ${JSON.stringify(skill)},
    description: "One or two sentences: the system, the user's goal, how success is judged.",
    maxTurns: 20,
    tools: [
      {
        type: "function",
        function: {
          name: "find_orders",
          description: "What the tool does, as the agent will read it.",
          parameters: {
            type: "object",
            properties: {
              filter: {
                type: "object",
                properties: { status: { type: "string", enum: ["open", "shipped"] }, min_total: { type: "number" } },
              },
              fields: { type: "array", items: { type: "string" } },
            },
            required: ["filter"],
          },
        },
      },
      // ... more tools (4 to 8 in all)
    ],
  };

  reset(seed) {
    // Generate the system's data with Math.random only (the host seeds it with \`seed\`).
    return { observation: "the user's request, in plain words", info: {} };
  }

  step(action) {
    // action.toolCalls: [{ id, name, arguments }], arguments already parsed (nested objects and arrays kept).
    // action.text: the agent's text; action.answer: its last \\boxed{...} or <answer>...</answer>, else null.
    const toolResults = action.toolCalls.map((call) => ({ id: call.id, content: JSON.stringify(this.call(call.name, call.arguments)) }));
    return { observation: "a short note on the turn", reward: 0, terminated: false, truncated: false, info: {}, toolResults };
  }

  hint() { return "privileged help for this episode"; }

  solve() { return { toolCalls: [{ name: "find_orders", arguments: { filter: { status: "open" } } }] }; }
}
\`\`\``;

/** The rules every program must follow to pass validation, with the limits it runs under. */
function rules(skill: string, limits: SandboxLimits): string {
  const kib = (bytes: number) => Math.floor(bytes / 1024);
  return [
    "1. Form: one file of plain JavaScript: no import, export or require, no I/O, no network, no timers, no async code or Promises. Define `class Environment` at the top level; helper functions and constants may sit beside it.",
    `2. meta: \`name\` lowercase-kebab, at most 64 characters; \`skill\` exactly ${JSON.stringify(skill)}; \`description\` one or two sentences; \`maxTurns\` an integer from 1 to ${MAX_TURNS_LIMIT}; \`tools\` an array of OpenAI function schemas (parameters of \`type: "object"\`), empty for a game.`,
    "3. Determinism: Math.random is the only source of randomness; the host seeds it at every reset(seed), and the clock is frozen. reset() sets up every piece of episode state, so the same seed followed by the same actions gives the same observations and rewards, on this instance or on a fresh one, whatever happened before.",
    "4. Never throw. step() receives anything: empty text, junk, an answer of the wrong kind, unknown tools, missing or mistyped arguments. Answer those with an observation that says what was wrong and how to act, reward 0 (or a small penalty), and the episode going on. Everything you return must be JSON: strings, finite numbers, booleans, null, arrays, plain objects (no undefined, NaN or Infinity).",
    "5. Rewards: every step's reward is a finite number in [-1, 1]; the episode's return is the sum, clamped to [-1, 1]; an episode succeeds when its return is at least 0.99. Give 1 on the step that reaches the goal and end the episode (terminated: true). Partial rewards, if any, must stay small enough that they cannot add up to 0.99 without reaching the goal. A lost game ends with reward 0 or a penalty. Once the episode has ended, step() returns terminated: true and reward 0.",
    `6. hint(): privileged help for the current episode: a non-empty string of at most ${MAX_HINT_CHARS} characters. It may read hidden state but must not change it, and it must be the same every time right after reset(seed) with the same seed. The hint is shown to the agent in some plays and not in others; your environment is best when the hint turns a hard episode into a manageable one (a hidden fact, the rule, the key idea) without playing every move for the agent.`,
    '7. solve(): the oracle: the best next action from the current state, computed from that state, never from a fixed script, and without changing state. Validation plays several seeds by calling solve() before every step; following it must reach success within maxTurns on every seed. Return `{ text }` with the reply (e.g. `{ text: "\\\\boxed{42}" }`) or `{ toolCalls: [{ name, arguments }] }`.',
    "8. No free wins: validation also plays policies that know nothing: empty replies, repeating the observation back, and random probes (junk text, `\\boxed{0}`, one call of each tool with arbitrary schema-valid arguments). None may succeed on most seeds. Use a large answer space, make winning depend on information the agent has to earn, and make any finish or submit action check the work instead of ending with success.",
    `9. Limits: reset() must finish within ${limits.resetTimeoutMs} ms of CPU; step(), hint() and solve() within ${limits.stepTimeoutMs} ms each; memory is capped at ${Math.floor(limits.memoryBytes / (1024 * 1024))} MiB; the program at ${kib(limits.sourceBytes)} KiB; each returned value at ${kib(limits.outputBytes)} KiB of JSON. Enumerating ten thousand candidates in reset() is fine; millions are not.`,
  ].join("\n");
}

const GAME_GUIDANCE = [
  "- Make it a real multi-turn game: the state changes with every action, the agent uncovers hidden information or steers a position, each turn offers at least two meaningfully different actions, and a wrong choice costs something (turns, resources, the game).",
  "- Actions are written as `\\boxed{...}` (for example `\\boxed{move north}` or `\\boxed{4721}`); read them from `action.answer`. Every observation shows the current state, the progress (turn, resources) and the actions available with their format.",
  "- Not a single question with 'wrong, try again' feedback, and not a linear search where only one action makes sense.",
  "- Everything needed to win is shown to the agent or can be earned by acting; random play should lose.",
  "- Pace: the oracle should need several turns, about half to three quarters of maxTurns.",
].join("\n");

const TOOL_GUIDANCE = [
  "- Simulate a system: generate its data in reset() (10 to 50 records, not 2 or 3), with tools that read state and tools that change it; 4 to 8 tools in all, one or two of them plausible but not needed. At least one parameter is a nested object or an array; use `enum`, `required`, `minimum`/`maximum` where they belong.",
  "- The first observation is the user's request, in plain words as a user would write it (it may also come in stages, the next part revealed when the previous one is done).",
  '- Check every call against its schema and the state: an unknown tool, missing or mistyped arguments, an unknown id or an unmet precondition give an error result (e.g. `{"error": "NOT_FOUND", "message": "..."}`) for that call. Never throw.',
  "- Answer every call of the turn in `toolResults`, one `{ id, content }` per call with the call's own id; `content` is a string (JSON.stringify structured data). A reply without calls gets an observation telling the agent to use the tools.",
  "- Judge success on the final state (and on the reported value when the task asks for one, e.g. an argument of a `finish` or `submit` tool). Reward 1 only when everything requested was done and nothing else was changed.",
  "- Tools are deterministic functions of the state and their arguments; randomness belongs in reset() only.",
].join("\n");

/** The contract section of a game design prompt. */
export function gameContract(skill: string, limits: SandboxLimits): string {
  return `## The contract\n\n${GAME_SKELETON(skill)}\n\nRules (validation checks each one):\n${rules(skill, limits)}\n\n## Design guidance\n${GAME_GUIDANCE}`;
}

/** The contract section of a tool-use design prompt. */
export function toolUseContract(skill: string, limits: SandboxLimits): string {
  return `## The contract\n\n${TOOL_SKELETON(skill)}\n\nRules (validation checks each one):\n${rules(skill, limits)}\n\n## Design guidance\n${TOOL_GUIDANCE}`;
}

/** The closing instruction: how to answer. */
export const ANSWER_FORMAT = answerFormat("javascript");

/** The system message of game designs written in Python (`--env-language python`). */
export const PYTHON_GAME_SYSTEM_PROMPT = gameSystemPrompt("Python");

const PYTHON_GAME_SKELETON = (skill: string) => `\`\`\`python
import random
import re


class Environment:
    meta = {
        "name": "short-kebab-name",       # lowercase letters, digits and dashes, at most 64 characters
        "skill": ${JSON.stringify(skill)},
        "description": "One or two sentences: what the agent must do and how it is judged.",
        "maxTurns": 12,                   # the runner ends the episode after this many agent turns
        "tools": [],                      # a game has no tools
    }

    def reset(self, seed=None):
        # Build a fresh episode using the random module only (the host seeds it with \`seed\`).
        return "the rules, the goal, the starting state, and how to answer", {}

    def step(self, action):
        # action: the agent's whole reply as a string; read its answer from the last \\\\boxed{...}.
        return "what happened, the new state, what can be done next", 0.0, False, False, {}

    def hint(self):
        return "privileged help for this episode"

    def solve(self):
        return "\\\\boxed{...}"   # the oracle's next action (a reply string) from the current state
\`\`\``;

/** The system message of tool-use designs written in Python (`--env-language python --mode tool-use`). */
export const PYTHON_TOOL_USE_SYSTEM_PROMPT = toolUseSystemPrompt("Python");

const PYTHON_TOOL_SKELETON = (skill: string) => `\`\`\`python
import json
import random


class Environment:
    meta = {
        "name": "short-kebab-name",
        "skill": ${JSON.stringify(skill)},
        "description": "One or two sentences: the system, the user's goal, how success is judged.",
        "maxTurns": 20,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "find_orders",
                    "description": "What the tool does, as the agent will read it.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "filter": {
                                "type": "object",
                                "properties": {"status": {"type": "string", "enum": ["open", "shipped"]}, "min_total": {"type": "number"}},
                            },
                            "fields": {"type": "array", "items": {"type": "string"}},
                        },
                        "required": ["filter"],
                    },
                },
            },
            # ... more tools (4 to 8 in all)
        ],
    }

    def reset(self, seed=None):
        # Generate the system's data with the random module only (the host seeds it with \`seed\`).
        return "the user's request, in plain words", {}

    def step(self, action):
        # action: a dict. action["toolCalls"]: [{"id", "name", "arguments"}], arguments already parsed (nested dicts and lists kept).
        # action["text"]: the agent's text; action["answer"]: its last \\\\boxed{...} or <answer>...</answer>, else None.
        results = [{"id": call["id"], "content": json.dumps(self.call(call["name"], call["arguments"]))} for call in action["toolCalls"]]
        return "a short note on the turn", 0.0, False, False, {}, results   # the tool results come sixth

    def hint(self):
        return "privileged help for this episode"

    def solve(self):
        return {"toolCalls": [{"name": "find_orders", "arguments": {"filter": {"status": "open"}}}]}
\`\`\``;

/** The rules of a Python program: the JavaScript rules with Python's form, randomness and oracle answers. */
function pythonRules(skill: string, limits: SandboxLimits): string {
  const lines = rules(skill, limits).split("\n");
  lines[0] =
    "1. Form: one file of Python 3 using only the standard-library modules random, re, json, math, itertools, collections, functools, heapq, " +
    "string, copy, statistics, typing, dataclasses, enum, fractions, decimal, bisect, operator, textwrap (anything else, files, processes and " +
    "the network are refused). Define `class Environment` at the top level with `reset`, `step`, `hint` and `solve`; helper functions and " +
    "constants may sit beside it. `print` shows nothing.";
  lines[2] =
    "3. Determinism: the `random` module is the only source of randomness; the host seeds it at every reset(seed). reset() sets up every " +
    "piece of episode state, so the same seed followed by the same actions gives the same observations and rewards. Return only plain values " +
    "(str, int, float, bool, None, list, dict): they cross the sandbox as JSON.";
  lines[6] = (lines[6] as string).replace(
    /Return `\{ text \}`.*$/,
    'Return the reply as a string (e.g. `"\\\\boxed{42}"`) or a dict `{"toolCalls": [{"name": ..., "arguments": {...}}]}`.',
  );
  return lines.join("\n");
}

/** The contract section of a game design prompt in Python. */
export function pythonGameContract(skill: string, limits: SandboxLimits): string {
  const guidance = GAME_GUIDANCE.replace(
    "read them from `action.answer`",
    "read the last `\\\\boxed{...}` of the `action` string with `re`",
  );
  return `## The contract\n\n${PYTHON_GAME_SKELETON(skill)}\n\nRules (validation checks each one):\n${pythonRules(skill, limits)}\n\n## Design guidance\n${guidance}`;
}

/**
 * The contract section of a tool-use design prompt in Python: the program the Python sandbox
 * runs as a tool-use environment (meta `tools`; `step` gets the whole action as a dict and
 * returns the tool results sixth; docs/sandbox.md).
 */
export function pythonToolUseContract(skill: string, limits: SandboxLimits): string {
  const guidance = TOOL_GUIDANCE.replace(
    "Answer every call of the turn in `toolResults`, one `{ id, content }` per call with the call's own id; `content` is a string (JSON.stringify structured data).",
    'Answer every call of the turn in the tool results, the sixth value step() returns: a list of one `{"id": ..., "content": ...}` per call with the call\'s own id; `content` is a string (`json.dumps` structured data).',
  );
  return `## The contract\n\n${PYTHON_TOOL_SKELETON(skill)}\n\nRules (validation checks each one):\n${pythonRules(skill, limits)}\n\n## Design guidance\n${guidance}`;
}

/** The closing instruction of a Python design: how to answer. */
export const PYTHON_ANSWER_FORMAT = answerFormat("python");
