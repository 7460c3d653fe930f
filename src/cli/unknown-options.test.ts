import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { describe, expect, it } from "vitest";
import { codeAndMessageOfAsync } from "../../test/assert.js";
import { main } from "./commands.js";
import { rejectUnknownOptions } from "./unknown-options.js";

/** A test double of the CLI's tree: a leaf with flags of each kind, and a group. */
const tree = defineCommand({
  meta: { name: "spade" },
  subCommands: {
    run: defineCommand({
      args: {
        steps: { type: "string" },
        "max-off-policy": { type: "string" },
        train: { type: "boolean" },
        mode: { type: "enum", options: ["games", "tool-use"] },
        dir: { type: "positional", required: false },
      },
    }),
    eval: defineCommand({
      subCommands: { gsm8k: defineCommand({ args: { policy: { type: "string" } } }) },
    }),
  },
});

/** The message of the E_CONFIG that `words` get; fails the test on anything else. */
async function refusal(words: string[]): Promise<string> {
  const { code, message } = await codeAndMessageOfAsync(rejectUnknownOptions(tree, words));
  expect(code).toBe("E_CONFIG");
  return message;
}

describe("rejectUnknownOptions", () => {
  it.each([
    [["run", "--steps", "3", "--no-train", "--mode", "games", "DIR"]],
    [["run", "--max-off-policy=1", "--maxOffPolicy", "1", "--train=false"]],
    [["run", "--steps", "--stepz"]],
    [["run", "DIR", "--", "--anything", "-x"]],
    [["run", "-1"]],
    [["eval", "gsm8k", "--policy", "oracle"]],
    [["nope", "--whatever"]],
    [[]],
  ])("takes citty's spellings of declared flags: %j", async (words) => {
    await expect(rejectUnknownOptions(tree, words)).resolves.toBeUndefined();
  });

  it("refuses a misspelt flag, naming the nearest", async () => {
    expect(await refusal(["run", "--stepz", "3"])).toBe(
      "unknown option --stepz for spade run: did you mean --steps? (spade run --help lists its options)",
    );
    expect(await refusal(["run", "--max-of-policy=2"])).toBe(
      "unknown option --max-of-policy for spade run: did you mean --max-off-policy? " +
        "(spade run --help lists its options)",
    );
  });

  it("refuses --no- before a flag that takes a value, a short flag, and a group's own flag", async () => {
    expect(await refusal(["run", "--no-steps"])).toBe(
      "unknown option --no-steps for spade run: did you mean --steps? (spade run --help lists its options)",
    );
    expect(await refusal(["run", "-x"])).toBe(
      "unknown option -x for spade run (spade run --help lists its options)",
    );
    expect(await refusal(["eval", "--policy", "oracle", "gsm8k"])).toBe(
      "unknown option --policy for spade eval (spade eval --help lists its options)",
    );
    expect(await refusal(["eval", "gsm8k", "--polcy", "oracle"])).toBe(
      "unknown option --polcy for spade eval gsm8k: did you mean --policy? " +
        "(spade eval gsm8k --help lists its options)",
    );
  });
});

/** Every `spade ...` command line in README.md and docs/*.md: inline code and fenced blocks. */
function documentedCommands(): { file: string; words: string[] }[] {
  const root = join(import.meta.dirname, "../..");
  const files = ["README.md", ...readdirSync(join(root, "docs")).map((f) => join("docs", f))];
  const commands: { file: string; words: string[] }[] = [];
  for (const file of files.filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(join(root, file), "utf8");
    const snippets = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? "");
    for (const block of text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) {
      snippets.push(...(block[1] ?? "").split("\n"));
    }
    for (const snippet of snippets) {
      for (const match of snippet.matchAll(/(?:^|[\s(])spade ([a-z].*)$/g)) {
        // One command: up to a shell operator; placeholders' brackets and `A\|B` alternatives unwrapped.
        const line = (match[1] ?? "").split(/\s(?:&&|;|\|)\s/)[0] ?? "";
        const words = line
          .split(/\s+/)
          .flatMap((w) => w.replace(/^[[(]+|[\]),.:]+$/g, "").split(/\\?\|(?=--)/))
          .filter((w) => w !== "");
        commands.push({ file, words });
      }
    }
  }
  return commands;
}

describe("the documentation's commands", () => {
  it("use only flags the commands have", async () => {
    const commands = documentedCommands();
    expect(commands.length).toBeGreaterThan(150);
    const wrong: string[] = [];
    for (const { file, words } of commands) {
      await rejectUnknownOptions(main, words).catch((e: Error) =>
        wrong.push(`${file}: ${e.message}`),
      );
    }
    expect(wrong).toEqual([]);
  });
});
