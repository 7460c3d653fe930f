// Counterfeit coin: find the one fake coin with three weighings on a balance scale.
class Environment {
  static meta = {
    name: "counterfeit-coin",
    skill: "Logical Deduction",
    description:
      "Among up to 27 identical-looking coins one is counterfeit: either known to be heavier, or (with up to 12 coins) heavier or lighter, unknown which. Use at most three balance-scale weighings, chosen adaptively, then name the fake coin.",
    maxTurns: 6,
    tools: [],
  };

  static WEIGHINGS = 3;

  reset(seed) {
    // Both variants are exactly solvable in three weighings: 3^3 = 27 coins when the fake is known
    // to be heavier, and (3^3 - 3) / 2 = 12 coins when it may be heavier or lighter.
    this.knownHeavy = Math.random() < 0.5;
    this.coins = this.knownHeavy ? 10 + Math.floor(Math.random() * 18) : 6 + Math.floor(Math.random() * 7);
    this.fake = 1 + Math.floor(Math.random() * this.coins);
    this.heavy = this.knownHeavy || Math.random() < 0.5;
    // Where the fake sits inside the hint's block of four, drawn now so hint() stays deterministic.
    this.hintOffset = Math.floor(Math.random() * 4);
    this.weighingsLeft = Environment.WEIGHINGS;
    this.log = [];
    this.done = false;
    const rule = this.knownHeavy
      ? "Exactly one is counterfeit, and it is HEAVIER than the others. Name it, e.g. \\boxed{coin 5}."
      : "Exactly one is counterfeit; it is either heavier or lighter than the others, you do not know which. Name it and say which, e.g. \\boxed{coin 5 lighter}.";
    return {
      observation:
        `You have ${this.coins} coins numbered 1-${this.coins}. ${rule} ` +
        `You may use a balance scale at most ${Environment.WEIGHINGS} times; naming a coin ends the game. ` +
        "To weigh, put the same number of coins on each pan, e.g. \\boxed{1,2,3 vs 4,5,6}.",
      info: { fake: this.fake, heavy: this.heavy },
    };
  }

  static parseSide(text) {
    const numbers = text.match(/\d+/g);
    return numbers ? numbers.map(Number) : [];
  }

  invalid(why) {
    const naming = this.knownHeavy ? "\\boxed{coin 5}" : "\\boxed{coin 5 lighter}";
    return {
      observation: `${why} Name the fake like ${naming}, or weigh with e.g. \\boxed{1,2 vs 3,4} (${this.weighingsLeft} weighing${this.weighingsLeft === 1 ? "" : "s"} left).`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { valid: false },
    };
  }

  weigh(left, right) {
    const all = left.concat(right);
    if (left.length === 0 || left.length !== right.length) return this.invalid("Both pans need the same, non-zero number of coins.");
    if (all.some((c) => c < 1 || c > this.coins)) return this.invalid(`Coins are numbered 1 to ${this.coins}.`);
    if (new Set(all).size !== all.length) return this.invalid("A coin can only be in one place at a time.");
    if (this.weighingsLeft === 0) return this.invalid("The scale is gone: no weighings left, name the fake coin now.");
    this.weighingsLeft--;
    const sign = this.heavy ? 1 : -1;
    const tilt = left.includes(this.fake) ? sign : right.includes(this.fake) ? -sign : 0;
    const outcome = tilt > 0 ? "the LEFT pan is heavier" : tilt < 0 ? "the RIGHT pan is heavier" : "the pans BALANCE";
    const line = `${left.join(",")} vs ${right.join(",")}: ${outcome}`;
    this.log.push(line);
    return {
      observation: `Weighing ${this.log.length}: ${line}. ${this.weighingsLeft} weighing${this.weighingsLeft === 1 ? "" : "s"} left.`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: {},
    };
  }

  step(action) {
    if (this.done) return { observation: "The coins have been put away.", reward: 0, terminated: true, truncated: false, info: {} };
    const answer = (action.answer ?? "").toLowerCase();
    const pans = answer.split(/\s+vs\.?\s+|\s+v\s+|\||\s+versus\s+|\s+against\s+/);
    if (pans.length === 2) return this.weigh(Environment.parseSide(pans[0]), Environment.parseSide(pans[1]));
    const numbers = Environment.parseSide(answer);
    if (numbers.length !== 1) return this.invalid("Give either a weighing or exactly one coin number.");
    const said = /heav/.test(answer) ? true : /light/.test(answer) ? false : null;
    if (!this.knownHeavy && said === null) return this.invalid("Also say whether the fake is heavier or lighter.");
    this.done = true;
    const right = numbers[0] === this.fake && (this.knownHeavy || said === this.heavy);
    const truth = `coin ${this.fake}${this.knownHeavy ? "" : this.heavy ? ", heavier" : ", lighter"}`;
    if (right) return { observation: `Correct: the counterfeit is ${truth}.`, reward: 1, terminated: true, truncated: false, info: { correct: true } };
    return { observation: `Wrong: the counterfeit was ${truth}.`, reward: 0, terminated: true, truncated: false, info: { correct: false } };
  }

  hint() {
    // Narrow the fake to a small block of coins that contains it, and give its direction.
    const start = Math.max(1, Math.min(this.fake - this.hintOffset, this.coins - 3));
    const block = [];
    for (let c = start; c < start + 4 && c <= this.coins; c++) block.push(c);
    const weight = this.knownHeavy ? "" : ` It is ${this.heavy ? "heavier" : "lighter"} than the genuine coins.`;
    return `The counterfeit is one of coins ${block.join(", ")}.${weight} Split candidates into three groups of nearly equal size for every weighing.`;
  }

  solve() {
    return { text: `\\boxed{coin ${this.fake}${this.knownHeavy ? "" : this.heavy ? " heavier" : " lighter"}}` };
  }
}
