// Sequence sleuth: find the hidden rule of an integer sequence and predict near and far terms.
class Environment {
  static meta = {
    name: "sequence-sleuth",
    skill: "Pattern Recognition",
    description:
      "Seven terms of an integer sequence built by one of nine rule families (polynomial, affine recurrence, Fibonacci-like, interleaved, alternating operations, digit sums, powers, primes, doubling gaps). Predict terms 8 and 9, each revealed after answering, then the far-off term 12.",
    maxTurns: 6,
    tools: [],
  };

  static SHOWN = 7;
  static ASKED = [8, 9, 12];

  static int(lo, hi) {
    return lo + Math.floor(Math.random() * (hi - lo + 1));
  }

  // Each family draws parameters and returns {terms(count), rule}; terms are 1-indexed in prose.
  static FAMILIES = [
    function quadratic() {
      const [a, b, c] = [Environment.int(-5, 12), Environment.int(-4, 9), Environment.int(1, 5) * (Math.random() < 0.25 ? -1 : 1)];
      return {
        terms: (n) => Array.from({ length: n }, (_, i) => a + b * i + (c * i * (i - 1)) / 2),
        rule: `The differences between neighbouring terms grow by ${c} each step (start ${a}, first difference ${b}).`,
      };
    },
    function affine() {
      const [k, c, x0] = [Environment.int(2, 3), Environment.int(-3, 5), Environment.int(1, 6)];
      return {
        terms: (n) => {
          const out = [x0];
          while (out.length < n) out.push(k * out[out.length - 1] + c);
          return out;
        },
        rule: `Each term is ${k} times the previous term ${c < 0 ? "minus" : "plus"} ${Math.abs(c)}.`,
      };
    },
    function fibonacciLike() {
      const [x0, x1, c] = [Environment.int(1, 7), Environment.int(1, 7), Environment.int(0, 3)];
      return {
        terms: (n) => {
          const out = [x0, x1];
          while (out.length < n) out.push(out[out.length - 1] + out[out.length - 2] + c);
          return out.slice(0, n);
        },
        rule: `Each term is the sum of the two before it${c ? ` plus ${c}` : ""}.`,
      };
    },
    function interleaved() {
      const [a, d, b, r] = [Environment.int(1, 20), Environment.int(2, 9), Environment.int(1, 4), Environment.int(2, 3)];
      return {
        terms: (n) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? a + d * (i / 2) : b * r ** ((i - 1) / 2))),
        rule: `Two sequences alternate: odd positions go ${a}, ${a + d}, ... (step ${d}); even positions go ${b}, ${b * r}, ... (times ${r}).`,
      };
    },
    function alternatingOps() {
      const [x0, p, q] = [Environment.int(1, 9), Environment.int(1, 7), Environment.int(2, 3)];
      return {
        terms: (n) => {
          const out = [x0];
          while (out.length < n) out.push(out.length % 2 === 1 ? out[out.length - 1] + p : out[out.length - 1] * q);
          return out;
        },
        rule: `Starting from ${x0}, the steps alternate: add ${p}, then multiply by ${q}.`,
      };
    },
    function digitSums() {
      const x0 = Environment.int(10, 99);
      const digitSum = (x) => String(x).split("").reduce((s, d) => s + Number(d), 0);
      return {
        terms: (n) => {
          const out = [x0];
          while (out.length < n) out.push(out[out.length - 1] + digitSum(out[out.length - 1]));
          return out;
        },
        rule: "Each term is the previous term plus the sum of its decimal digits.",
      };
    },
    function powers() {
      const [p, s, c] = [Environment.int(2, 3), Environment.int(0, 4), Environment.int(-6, 9)];
      return {
        terms: (n) => Array.from({ length: n }, (_, i) => (i + 1 + s) ** p + c),
        rule: `Term number i is (i + ${s}) to the power ${p}, ${c < 0 ? "minus" : "plus"} ${Math.abs(c)}.`,
      };
    },
    function primes() {
      const [skip, m, c] = [Environment.int(0, 4), Environment.int(1, 3), Environment.int(-2, 6)];
      const list = [];
      for (let x = 2; list.length < 40; x++) if (list.every((p) => x % p !== 0)) list.push(x);
      return {
        terms: (n) => list.slice(skip, skip + n).map((p) => m * p + c),
        rule: `Take the prime numbers from ${list[skip]} on; multiply each by ${m} and add ${c}.`,
      };
    },
    function doublingGaps() {
      const [x0, g, r] = [Environment.int(1, 15), Environment.int(1, 4), Environment.int(2, 3)];
      return {
        terms: (n) => {
          const out = [x0];
          for (let gap = g; out.length < n; gap *= r) out.push(out[out.length - 1] + gap);
          return out;
        },
        rule: `The gaps between terms start at ${g} and are multiplied by ${r} each step.`,
      };
    },
  ];

  reset(seed) {
    const family = Environment.FAMILIES[Math.floor(Math.random() * Environment.FAMILIES.length)];
    const last = Environment.ASKED[Environment.ASKED.length - 1];
    // Redraw degenerate sequences (constant stretches or repeated values hide the rule).
    for (;;) {
      const drawn = family();
      const terms = drawn.terms(last);
      if (new Set(terms.slice(0, Environment.SHOWN)).size === Environment.SHOWN && terms.every(Number.isSafeInteger)) {
        this.terms = terms;
        this.rule = drawn.rule;
        break;
      }
    }
    this.family = family.name;
    this.round = 0;
    this.correct = 0;
    this.done = false;
    return {
      observation:
        `Here are the first ${Environment.SHOWN} terms of a sequence: ${this.terms.slice(0, Environment.SHOWN).join(", ")}.\n` +
        `You will be asked for terms ${Environment.ASKED.join(", ")} one at a time; the true value is revealed after each answer. Answer with one integer in a box: \\boxed{integer}.\n` +
        `Question 1: what is term ${Environment.ASKED[0]}?`,
      info: { family: this.family },
    };
  }

  known() {
    const upTo = this.round === 0 ? Environment.SHOWN : Environment.ASKED[this.round - 1];
    return this.terms.slice(0, Math.max(Environment.SHOWN, upTo));
  }

  step(action) {
    if (this.done) return { observation: "The sequence is complete.", reward: 0, terminated: true, truncated: false, info: {} };
    const asked = Environment.ASKED[this.round];
    const m = action.answer === null ? null : /-?\d+/.exec(action.answer.replace(/[,\s]/g, ""));
    if (m === null) {
      return {
        observation: `Answer with one integer in a box, as in \\boxed{integer}.\nQuestion ${this.round + 1}: what is term ${asked}?`,
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    const truth = this.terms[asked - 1];
    const right = Number(m[0]) === truth;
    if (right) this.correct++;
    this.round++;
    const verdict = `${right ? "Correct" : "Not correct"}: term ${asked} is ${truth}.`;
    const reward = right ? 1 / Environment.ASKED.length : 0;
    if (this.round === Environment.ASKED.length) {
      this.done = true;
      return { observation: `${verdict} You got ${this.correct} of ${Environment.ASKED.length}.`, reward, terminated: true, truncated: false, info: { correct: this.correct } };
    }
    const next = Environment.ASKED[this.round];
    return {
      observation: `${verdict} Known so far: ${this.known().join(", ")}.\nQuestion ${this.round + 1}: what is term ${next}?`,
      reward,
      terminated: false,
      truncated: false,
      info: { right },
    };
  }

  hint() {
    return `The rule: ${this.rule}`;
  }

  solve() {
    const asked = Environment.ASKED[Math.min(this.round, Environment.ASKED.length - 1)];
    return { text: `\\boxed{${this.terms[asked - 1]}}` };
  }
}
