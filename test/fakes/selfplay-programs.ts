/**
 * @module test/fakes/selfplay-programs
 * TEST DOUBLE. The environment programs the scripted designer "writes" in the self-play
 * end-to-end tests, each built so its win rate and regret against the scripted agent
 * (test/fakes/selfplay-server.ts) are known by hand:
 * - hintOnly*: the answer appears only in the hint -> win rate 0, regret 1;
 * - easy*: the answer is in the observation -> win rate 1, regret 0;
 * - flicker: the answer is shown on even seeds only -> win rate = share of even seeds;
 * - failureLab: seed % 5 picks the round: 0 shows the answer, 1 says FLOOD, 2 says MANGLE and
 *   shows it, 3 hides it (hint only), 4 says BREAK (what the agent double does with those words
 *   is in test/e2e/run-failures-cli.test.ts);
 * - the rest are refused by the validator or the dedupe check.
 */

const fence = (code: string) =>
  `Here is the environment.\n\n\`\`\`javascript\n${code.trim()}\n\`\`\`\n`;

/** Hint-only, colour word (the hint says "The answer is <word>"). */
export function hintOnlyWord(
  skill: string,
  name = "colour-vault",
  ids = { word: "word", turn: "turn" },
): string {
  return fence(`
class Environment {
  static meta = { name: "${name}", skill: "${skill}", description: "Name the hidden colour word; only the hint reveals it.", maxTurns: 2, tools: [] };
  reset(seed) {
    this.${ids.word} = ["amber", "cobalt", "violet", "scarlet"][seed % 4];
    this.${ids.turn} = 0;
    return { observation: "Name the hidden colour word in \\\\boxed{}.", info: {} };
  }
  step(action) {
    this.${ids.turn}++;
    const ok = action.answer === this.${ids.word};
    return { observation: ok ? "Correct." : "No.", reward: ok ? 1 : 0, terminated: ok || this.${ids.turn} >= 2, truncated: false, info: {} };
  }
  hint() { return "The answer is " + this.${ids.word} + "."; }
  solve() { return { text: "\\\\boxed{" + this.${ids.word} + "}" }; }
}`);
}

/** Hint-only, a sequence whose next term is arbitrary. */
export function hintOnlySequence(skill: string): string {
  return fence(`
class Environment {
  static meta = { name: "secret-sequence", skill: "${skill}", description: "Continue a sequence whose rule is secret; the hint states the next term.", maxTurns: 3, tools: [] };
  reset(seed) {
    const first = seed % 50;
    const gap = 3 + (seed % 5);
    const terms = [];
    for (let i = 0; i < 4; i++) terms.push(first + i * gap);
    this.expected = "t" + (first * 31 + gap);
    this.tries = 3;
    return { observation: "Terms " + terms.join(" / ") + ". Give the next token in \\\\boxed{}.", info: { gap } };
  }
  step(action) {
    this.tries -= 1;
    if (action.answer === this.expected) return { observation: "Right.", reward: 1, terminated: true, truncated: false, info: {} };
    const over = this.tries <= 0;
    return { observation: over ? "Out of tries." : "Not it.", reward: 0, terminated: over, truncated: false, info: { left: this.tries } };
  }
  solve() { return { text: "\\\\boxed{" + this.expected + "}" }; }
  hint() { return "The answer is " + this.expected + "."; }
}`);
}

/** Easy: the observation says the number to echo. */
export function easyEcho(skill: string): string {
  return fence(`
class Environment {
  static meta = { name: "number-echo", skill: "${skill}", description: "Read the number the environment prints and echo it back.", maxTurns: 1, tools: [] };
  reset(seed) {
    this.target = String(100 + (seed % 900));
    return { observation: \`The answer is \${this.target}. Reply with it in \\\\boxed{}.\`, info: {} };
  }
  step(action) {
    if (action.answer === this.target) return { observation: "Yes", reward: 1, terminated: true, truncated: false, info: {} };
    return { observation: "Wrong", reward: 0, terminated: false, truncated: true, info: {} };
  }
  hint() { return \`Echo \${this.target}.\`; }
  solve() { return { text: \`\\\\boxed{\${this.target}}\` }; }
}`);
}

/** Easy: a shelf of labelled boxes; the observation names the right one. */
export function easyShelf(skill: string): string {
  return fence(`
class Environment {
  static meta = { name: "labelled-shelf", skill: "${skill}", description: "Pick the box the clerk points at from a labelled shelf.", maxTurns: 2, tools: [] };
  reset(seed) {
    const labels = [];
    for (const letter of ["p", "q", "r", "s", "u"]) labels.push(letter + ((seed >> 2) % 97));
    this.pick = labels[seed % labels.length];
    this.shelf = labels;
    return { observation: "Shelf: " + labels.join(", ") + ". The clerk says: The answer is " + this.pick + ". Which box? Use \\\\boxed{}.", info: {} };
  }
  step(action) {
    const hit = action.answer === this.pick;
    if (!hit && !this.shelf.includes(action.answer)) {
      return { observation: "That box is not on the shelf.", reward: 0, terminated: false, truncated: false, info: { valid: false } };
    }
    return { observation: hit ? "Right box." : "Wrong box.", reward: hit ? 1 : 0, terminated: true, truncated: false, info: { valid: true } };
  }
  hint() { return "Listen to the clerk."; }
  solve() { return { text: "\\\\boxed{" + this.pick + "}" }; }
}`);
}

/** Shows the passcode on even seeds only. */
export function flicker(skill: string): string {
  return fence(`
class Environment {
  static meta = { name: "flicker-panel", skill: "${skill}", description: "A flickering display sometimes shows the passcode; type the passcode.", maxTurns: 3, tools: [] };
  constructor() { this.log = []; }
  reset(seed) {
    this.code = "k" + ((seed * 7) % 1000);
    this.lit = seed % 2 === 0;
    this.log = [];
    const screen = this.lit ? "The answer is " + this.code + "." : "The screen is dark.";
    return { observation: screen + " Enter the passcode in braces after boxed.", info: { lit: this.lit } };
  }
  step(action) {
    this.log.push(action.answer);
    if (action.answer === this.code) return { observation: "Unlocked.", reward: 1, terminated: true, truncated: false, info: {} };
    const out = this.log.length >= 3;
    return { observation: out ? "Locked out." : "Wrong passcode.", reward: 0, terminated: out, truncated: false, info: {} };
  }
  hint() { return "The answer is " + this.code + "."; }
  solve() { return { text: "\\\\boxed{" + this.code + "}" }; }
}`);
}

/** Invalid: every action wins (E_TRIVIAL). */
export function everythingWins(skill: string): string {
  return fence(`
class Environment {
  static meta = { name: "free-lunch", skill: "${skill}", description: "Say anything and win.", maxTurns: 1, tools: [] };
  reset(seed) { return { observation: "Say anything.", info: {} }; }
  step(action) { return { observation: "You win.", reward: 1, terminated: true, truncated: false, info: {} }; }
  hint() { return "Anything works."; }
  solve() { return { text: "hello" }; }
}`);
}

/** Invalid: the oracle answers wrongly (E_ORACLE). */
export function wrongOracle(skill: string): string {
  return fence(`
class Environment {
  static meta = { name: "broken-oracle", skill: "${skill}", description: "Guess the secret number from 10 to 99.", maxTurns: 2, tools: [] };
  reset(seed) { this.secret = 10 + (seed % 90); return { observation: "Guess a number from 10 to 99 in \\\\boxed{}.", info: {} }; }
  step(action) {
    const ok = Number(action.answer) === this.secret;
    return { observation: ok ? "Yes" : "No", reward: ok ? 1 : 0, terminated: ok, truncated: false, info: {} };
  }
  hint() { return "It is between 10 and 99."; }
  solve() { return { text: "\\\\boxed{5}" }; }
}`);
}

/** The failure lab (see the module comment): its round kind is `seed % 5`, its word `seed % 4`. */
export function failureLab(skill: string): string {
  return fence(`
class Environment {
  static meta = { name: "failure-lab", skill: "${skill}", description: "Name the colour word; rounds differ in what they show and how they are played.", maxTurns: 3, tools: [] };
  reset(seed) {
    this.word = ["amber", "cobalt", "violet", "scarlet"][seed % 4];
    this.turn = 0;
    const shown = "The answer is " + this.word + ".";
    const ask = "Name the colour word in \\\\boxed{}.";
    const texts = [ask + " " + shown, "FLOOD. " + ask, "MANGLE. " + shown + " " + ask, ask, "BREAK. " + ask];
    return { observation: texts[seed % 5], info: {} };
  }
  step(action) {
    this.turn++;
    const ok = action.answer === this.word;
    return { observation: ok ? "Correct." : "No.", reward: ok ? 1 : 0, terminated: ok || this.turn >= 3, truncated: false, info: {} };
  }
  hint() { return "The answer is " + this.word + "."; }
  solve() { return { text: "\\\\boxed{" + this.word + "}" }; }
}`);
}
