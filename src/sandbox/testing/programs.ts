/**
 * @module sandbox/testing/programs
 * TEST DOUBLE: builds tiny environment programs from method bodies, for the sandbox's contract
 * and attack suites (and anyone else who needs a deliberately broken environment).
 */

/** Method bodies of a test program; each is the code inside the method's braces. */
export interface ProgramParts {
  /** Body of `reset(seed)`. */
  reset?: string;
  /** Body of `step(action)`. */
  step?: string;
  /** Body of `hint()`. */
  hint?: string;
  /** Body of `solve()`. */
  solve?: string;
  /** Source of the `static meta = ...;` initialiser (an expression). */
  meta?: string;
  /** Top-level code placed after the class. */
  topLevel?: string;
  /** Extra class members (fields, helpers, a constructor). */
  members?: string;
}

/** The meta every test program has unless told otherwise. */
export const TEST_META = {
  name: "echo-test",
  skill: "Pattern Recognition",
  description: "Test double: echoes the action back.",
  maxTurns: 5,
  tools: [],
} as const;

/**
 * The default bodies: reset shows the seed and one `Math.random()` draw; step echoes the action
 * JSON as its observation and pays 1 (terminating) when the answer is "win"; the oracle answers
 * `\boxed{win}`.
 */
export const DEFAULT_PARTS: Required<Omit<ProgramParts, "topLevel" | "members">> = {
  reset:
    'this.turns = 0; return { observation: "seed " + seed + " random " + Math.random(), info: { seed: seed } };',
  step:
    'this.turns++; const win = action.answer === "win"; ' +
    "return { observation: JSON.stringify(action), reward: win ? 1 : 0, terminated: win, truncated: false, info: { turns: this.turns } };",
  hint: 'return "answer win";',
  solve: 'return { text: "\\\\boxed{win}" };',
  meta: JSON.stringify(TEST_META),
};

/** A program whose `Environment` uses `parts` where given and DEFAULT_PARTS elsewhere. */
export function makeProgram(parts: ProgramParts = {}): string {
  const p = { ...DEFAULT_PARTS, ...parts };
  return [
    "class Environment {",
    `  static meta = ${p.meta};`,
    parts.members ?? "",
    `  reset(seed) { ${p.reset} }`,
    `  step(action) { ${p.step} }`,
    `  hint() { ${p.hint} }`,
    `  solve() { ${p.solve} }`,
    "}",
    parts.topLevel ?? "",
  ].join("\n");
}

/** A step body returning a well-formed result whose observation is the value of `expr`. */
export function stepReturning(expr: string): string {
  return `return { observation: String(${expr}), reward: 0, terminated: false, truncated: false, info: {} };`;
}
