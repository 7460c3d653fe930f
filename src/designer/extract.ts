/**
 * @module designer/extract
 * Finding the environment program in a designer completion. A completion without a usable
 * program is a coded outcome (data), never an exception.
 *
 * The rule, in order:
 * 1. Reasoning is removed: every `<think>...</think>` block; text before a lone `</think>` (chat
 *    templates that open the block themselves); everything after a `<think>` that never closes
 *    (the reasoning ran out of tokens, so no answer follows).
 * 2. Fenced blocks are read line by line: an opening line of 3+ backticks with an info string of
 *    `javascript`, `js`, `mjs` or nothing (any case), closed by a line of at least as many
 *    backticks and nothing else. Blocks in other languages are ignored.
 * 3. Of those blocks, the **last one that contains `class Environment`** is the program: models
 *    often show a draft or a fragment first and the final version last.
 * 4. When the text has no fence at all, the whole text is the program if it *is* code: it starts
 *    like JavaScript (a comment, `class`, `const`, `let`, `var`, `function` or `"use strict"`),
 *    ends with `}` or `;`, and contains `class Environment`. Prose around code never qualifies.
 *
 * For Python designs (`--env-language python`) the same rule reads blocks tagged `python`, `py`,
 * `python3` or nothing, the program's class is `class Environment` or a class whose name ends in
 * `Env` (the reference's loader), and unfenced text qualifies when it starts like Python (a
 * comment, a docstring, `import`, `from` or `class`).
 */
import { withoutTagged } from "../env/index.js";

/** Why no program was found. */
export type ExtractCode =
  /** Nothing but whitespace (or only reasoning) in the completion. */
  | "E_EMPTY"
  /** No JavaScript block and the text is not code by itself. */
  | "E_NO_CODE"
  /** JavaScript blocks exist but none defines `class Environment`. */
  | "E_NO_ENVIRONMENT"
  /** A block that defines `class Environment` opens but never closes (the completion was cut off). */
  | "E_UNTERMINATED";

/** The outcome of `extractProgram`. */
export type ExtractOutcome =
  | {
      ok: true;
      /** The program source (the block's content, or the whole text for unfenced code). */
      program: string;
      /** Where it came from. */
      from: "fenced" | "unfenced";
      /** JavaScript blocks found (0 for unfenced). */
      blockCount: number;
      /** Index of the chosen block among them (-1 for unfenced). */
      blockIndex: number;
    }
  | { ok: false; code: ExtractCode; message: string; blockCount: number };

const ENVIRONMENT_CLASS = /\bclass\s+Environment\b/;
const JS_INFO = new Set(["", "javascript", "js", "mjs"]);
const CODE_START = /^(?:\/\/|\/\*|class\s|const\s|let\s|var\s|function[\s*]|["']use strict["'])/;

/** What tells a program in each language: its blocks' info strings, its class, how unfenced code starts and ends. */
const LANGUAGES = {
  javascript: {
    info: JS_INFO,
    environment: ENVIRONMENT_CLASS,
    start: CODE_START,
    end: /[};]$/,
    name: "JavaScript",
    fence: "```javascript",
    cls: "class Environment",
  },
  python: {
    info: new Set(["", "python", "py", "python3"]),
    environment: /^class\s+(?:Environment|\w*Env)\b[^\n]*:/m,
    start: /^(?:#|"""|'''|import\s|from\s|class\s)/,
    end: /\S$/,
    name: "Python",
    fence: "```python",
    cls: "class Environment (or a class whose name ends in Env)",
  },
} as const;

/** `text` without model reasoning (see the module comment, rule 1). */
export function stripThinking(text: string): string {
  let out = withoutTagged(text, "<think>", "</think>");
  const lone = out.lastIndexOf("</think>");
  if (lone >= 0) out = out.slice(lone + "</think>".length);
  const open = out.indexOf("<think>");
  if (open >= 0) out = out.slice(0, open);
  return out;
}

/**
 * An opening fence line: its backticks and the first word of its info string, which holds no
 * backtick. The lookahead says "no backtick after the fence" once; the equivalent
 * `\s*([^`\s]*)[^`]*$` backtracks quadratically over a long line of spaces.
 */
const FENCE_OPEN = /^ {0,3}(`{3,})(?=[^`]*$)\s*([^`\s]*)/;

/** One fenced block. */
interface Block {
  info: string;
  body: string;
  closed: boolean;
}

/** Every fenced block of `text`, in order; a block left open runs to the end. */
function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split(/\r?\n/);
  let open: { fence: number; info: string; body: string[] } | null = null;
  for (const line of lines) {
    if (!open) {
      const m = FENCE_OPEN.exec(line);
      if (m)
        open = { fence: (m[1] as string).length, info: (m[2] as string).toLowerCase(), body: [] };
      continue;
    }
    const close = /^ {0,3}(`{3,})\s*$/.exec(line);
    if (close && (close[1] as string).length >= open.fence) {
      blocks.push({ info: open.info, body: open.body.join("\n"), closed: true });
      open = null;
    } else {
      open.body.push(line);
    }
  }
  if (open) blocks.push({ info: open.info, body: open.body.join("\n"), closed: false });
  return blocks;
}

/** Finds the program in a designer completion, in `language` (see the module comment for the rule). */
export function extractProgram(
  completion: string,
  language: "javascript" | "python" = "javascript",
): ExtractOutcome {
  const lang = LANGUAGES[language];
  const text = stripThinking(completion);
  if (text.trim() === "")
    return {
      ok: false,
      code: "E_EMPTY",
      message: "the answer is empty (after removing reasoning)",
      blockCount: 0,
    };
  const blocks = fencedBlocks(text).filter((b) => lang.info.has(b.info));
  const closed = blocks.filter((b) => b.closed);
  for (let i = closed.length - 1; i >= 0; i--) {
    const block = closed[i] as Block;
    if (lang.environment.test(block.body)) {
      return {
        ok: true,
        program: `${block.body.trim()}\n`,
        from: "fenced",
        blockCount: closed.length,
        blockIndex: i,
      };
    }
  }
  const unterminated = blocks.find((b) => !b.closed && lang.environment.test(b.body));
  if (unterminated) {
    return {
      ok: false,
      code: "E_UNTERMINATED",
      message: `the code block with ${lang.cls} never closes; the answer was probably cut off by the token limit`,
      blockCount: closed.length,
    };
  }
  if (closed.length > 0) {
    return {
      ok: false,
      code: "E_NO_ENVIRONMENT",
      message: `none of the ${closed.length} ${lang.name} block(s) defines ${lang.cls}`,
      blockCount: closed.length,
    };
  }
  const whole = text.trim();
  if (
    !whole.includes("```") &&
    lang.start.test(whole) &&
    lang.end.test(whole) &&
    lang.environment.test(whole)
  ) {
    return { ok: true, program: `${whole}\n`, from: "unfenced", blockCount: 0, blockIndex: -1 };
  }
  return {
    ok: false,
    code: "E_NO_CODE",
    message: `the answer has no ${lang.fence} block and is not a program by itself`,
    blockCount: 0,
  };
}
