// Vault cracker: deduce a 4-digit code from per-digit feedback (Mastermind with positions).
class Environment {
  static meta = {
    name: "vault-cracker",
    skill: "Logical Deduction",
    description:
      "Find a secret 4-digit code (digits distinct). After each guess the vault says which digits are in the right place and which are in the code but misplaced.",
    maxTurns: 10,
    tools: [],
  };

  reset(seed) {
    const digits = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    for (let i = digits.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [digits[i], digits[j]] = [digits[j], digits[i]];
    }
    this.code = digits.slice(0, 4).join("");
    this.guesses = [];
    this.done = false;
    // Candidates consistent with all feedback so far (the oracle's knowledge).
    this.candidates = [];
    for (let n = 0; n < 10000; n++) {
      const s = String(n).padStart(4, "0");
      if (new Set(s).size === 4) this.candidates.push(s);
    }
    return {
      observation:
        "A vault has a secret 4-digit code with 4 distinct digits. Guess it: answer with \\boxed{dddd}. " +
        "After each guess you learn how many digits are in the right place (hits) and how many are in the code but elsewhere (near). " +
        `You have ${Environment.meta.maxTurns} guesses.`,
      info: {},
    };
  }

  static score(code, guess) {
    let hits = 0;
    let near = 0;
    for (let i = 0; i < 4; i++) {
      if (guess[i] === code[i]) hits++;
      else if (code.includes(guess[i])) near++;
    }
    return { hits, near };
  }

  step(action) {
    if (this.done) return { observation: "The vault is closed.", reward: 0, terminated: true, truncated: false, info: {} };
    const guess = (action.answer || "").replace(/\s+/g, "");
    if (!/^\d{4}$/.test(guess) || new Set(guess).size !== 4) {
      return {
        observation: "Invalid guess: give exactly 4 distinct digits as \\boxed{dddd}.",
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    const { hits, near } = Environment.score(this.code, guess);
    this.guesses.push(guess);
    this.candidates = this.candidates.filter((c) => {
      const s = Environment.score(c, guess);
      return s.hits === hits && s.near === near;
    });
    if (hits === 4) {
      this.done = true;
      return { observation: `${guess}: the vault opens!`, reward: 1, terminated: true, truncated: false, info: { guesses: this.guesses.length } };
    }
    return {
      observation: `${guess}: ${hits} hits, ${near} near. ${Environment.meta.maxTurns - this.guesses.length} guesses left.`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { hits, near },
    };
  }

  hint() {
    return `The code starts with ${this.code[0]} and ends with ${this.code[3]}.`;
  }

  solve() {
    // Guess the first code still consistent with every answer so far.
    return { text: `\\boxed{${this.candidates[0]}}` };
  }
}
