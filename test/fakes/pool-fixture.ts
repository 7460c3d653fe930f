/**
 * @module test/fakes/pool-fixture
 * TEST FIXTURE. Writes a small pool folder in the layout of the reference's GPT-5.5 pool
 * (`games/game_*.py`, `manifest.jsonl`, `validation_manifest.jsonl`, `checksums.sha256`; the
 * manifest's fields as the released pool's: game_id, file_name, original_file_name, skill,
 * sha256, line_count, byte_count). The games speak to the self-play agent double, which answers
 * `\boxed{X}` when an observation says "The answer is X".
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A game that shows its answer: the agent double wins it. */
const SHOWN = String.raw`import re

class ShownAnswerEnv:
    """The answer is in the first observation."""
    def __init__(self, max_turns=3):
        self.max_turns = max_turns

    def reset(self, seed=None):
        self.word = random.choice(["ruby", "jade", "opal"])
        return "Say the word. The answer is " + self.word, {"seed": seed}

    def step(self, action):
        found = re.findall(r"\\boxed\{([^{}]*)\}", action)
        if found and found[-1].strip() == self.word:
            return "Right.", 1.0, True, False, {}
        return "Wrong.", 0.0, True, False, {}
`;

/** A game that hides its answer: the agent double loses it. */
const HIDDEN = String.raw`class HiddenAnswerEnv:
    """The answer is never shown."""
    def reset(self, seed=None):
        self.n = random.randint(100, 999)
        return "Guess my three-digit number in \\boxed{}.", {}

    def step(self, action):
        won = ("\\boxed{%d}" % self.n) in action
        return ("Yes." if won else "No."), (1.0 if won else 0.0), True, False, {}
`;

/** A game the pool's own validation failed (its reset raises). */
const BROKEN = String.raw`class BrokenEnv:
    def reset(self, seed=None):
        raise ValueError("broken on purpose")

    def step(self, action):
        return "", 0.0, True, False, {}
`;

/** The fixture's games: file, manifest skill, source, whether the pool's validation passed it. */
export const POOL_GAMES = [
  {
    file: "game_000000.py",
    original: "game_0000_logical_deduction.py",
    skill: "logical_deduction",
    source: SHOWN,
    passed: true,
  },
  {
    file: "game_000001.py",
    original: "game_0128_pattern_recognition.py",
    skill: "pattern_recognition",
    source: HIDDEN,
    passed: true,
  },
  {
    file: "game_000002.py",
    original: "game_0256_optimization.py",
    skill: "optimization",
    source: BROKEN,
    passed: false,
  },
] as const;

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Writes the pool under `root` and returns `root`. */
export function writePoolFixture(root: string): string {
  mkdirSync(join(root, "games"), { recursive: true });
  const manifest: string[] = [];
  const validation: string[] = [];
  const checksums: string[] = [];
  for (const game of POOL_GAMES) {
    writeFileSync(join(root, "games", game.file), game.source);
    const hash = sha256(game.source);
    manifest.push(
      JSON.stringify({
        game_id: game.file.slice(0, -3),
        file_name: game.file,
        original_file_name: game.original,
        skill: game.skill,
        sha256: hash,
        line_count: game.source.split("\n").length,
        byte_count: Buffer.byteLength(game.source),
      }),
    );
    validation.push(JSON.stringify({ file_name: game.file, valid: game.passed }));
    checksums.push(`${hash}  games/${game.file}`);
  }
  writeFileSync(join(root, "manifest.jsonl"), `${manifest.join("\n")}\n`);
  writeFileSync(join(root, "validation_manifest.jsonl"), `${validation.join("\n")}\n`);
  writeFileSync(join(root, "checksums.sha256"), `${checksums.join("\n")}\n`);
  return root;
}
