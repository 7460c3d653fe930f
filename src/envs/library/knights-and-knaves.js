// Knights and knaves: deduce who always tells the truth from statements islanders make about each other.
class Environment {
  static meta = {
    name: "knights-and-knaves",
    skill: "Logical Deduction",
    description:
      "Four or five islanders, each a knight (always truthful) or a knave (always lying), make statements about one another: kinds, pairs, counts and conditionals. Exactly one assignment fits; name every knight in a single answer.",
    maxTurns: 3,
    tools: [],
  };

  static NAMES = ["Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gita", "Hugo"];

  static pick(items) {
    return items[Math.floor(Math.random() * items.length)];
  }

  // A random statement by `speaker` about the islanders: {text, holds(kinds)}, kinds[i] true = knight.
  static randomStatement(speaker, names) {
    const n = names.length;
    const others = [];
    for (let i = 0; i < n; i++) if (i !== speaker) others.push(i);
    const x = Environment.pick(others);
    const y = Environment.pick(others.filter((i) => i !== x));
    const X = names[x];
    const Y = names[y];
    const k = 1 + Math.floor(Math.random() * (n - 1));
    const forms = [
      { text: `${X} is a knight.`, holds: (s) => s[x] },
      { text: `${X} is a knave.`, holds: (s) => !s[x] },
      { text: `${X} and ${Y} are both knights.`, holds: (s) => s[x] && s[y] },
      { text: `${X} and ${Y} are both knaves.`, holds: (s) => !s[x] && !s[y] },
      { text: `${X} and ${Y} are the same kind.`, holds: (s) => s[x] === s[y] },
      { text: `${X} and ${Y} are different kinds.`, holds: (s) => s[x] !== s[y] },
      { text: `At least one of ${X} and ${Y} is a knight.`, holds: (s) => s[x] || s[y] },
      { text: `If ${X} is a knight, then ${Y} is a knave.`, holds: (s) => !s[x] || !s[y] },
      { text: `${X} and I are the same kind.`, holds: (s) => s[x] === s[speaker] },
      { text: `Exactly ${k} of us ${n} ${k === 1 ? "is a knight" : "are knights"}.`, holds: (s) => s.filter(Boolean).length === k },
      { text: `At least ${k} of us ${n} ${k === 1 ? "is a knave" : "are knaves"}.`, holds: (s) => s.filter((v) => !v).length >= k },
    ];
    return Environment.pick(forms);
  }

  // Every knight/knave assignment in which each speaker's kind matches the truth of their words.
  static solutions(n, statements) {
    const found = [];
    for (let mask = 0; mask < 1 << n; mask++) {
      const kinds = [];
      for (let i = 0; i < n; i++) kinds.push(Boolean(mask & (1 << i)));
      if (statements.every((st) => st.holds(kinds) === kinds[st.speaker])) found.push(kinds);
    }
    return found;
  }

  reset(seed) {
    const n = 4 + Math.floor(Math.random() * 2);
    const pool = Environment.NAMES.slice();
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    this.names = pool.slice(0, n);
    // Draw the true kinds, let everyone speak truly to their kind, and add speakers until unique.
    for (;;) {
      const kinds = [];
      for (let i = 0; i < n; i++) kinds.push(Math.random() < 0.5);
      // At least one knight, so that no canned "none" answer is ever right.
      if (!kinds.includes(true)) continue;
      const statements = [];
      const say = (speaker) => {
        for (;;) {
          const st = Environment.randomStatement(speaker, this.names);
          if (st.holds(kinds) === kinds[speaker]) return statements.push({ speaker, text: st.text, holds: st.holds });
        }
      };
      for (let i = 0; i < n; i++) say(i);
      while (Environment.solutions(n, statements).length > 1 && statements.length < n + 2) say(Math.floor(Math.random() * n));
      if (Environment.solutions(n, statements).length === 1) {
        this.kinds = kinds;
        this.statements = statements.map((st) => ({ speaker: st.speaker, text: st.text }));
        break;
      }
    }
    this.done = false;
    const lines = this.statements.map((st) => `${this.names[st.speaker]} says: "${st.text}"`);
    return {
      observation:
        `On this island every inhabitant is a knight, who always tells the truth, or a knave, who always lies. You meet ${this.names.join(", ")}.\n` +
        `${lines.join("\n")}\n` +
        "Exactly one assignment of kinds fits these statements. Name all the knights in one box, e.g. \\boxed{name, name}, or \\boxed{none} if there are none. You get one answer.",
      info: { knights: this.knights() },
    };
  }

  knights() {
    return this.names.filter((_, i) => this.kinds[i]);
  }

  step(action) {
    if (this.done) return { observation: "The island has been left behind.", reward: 0, terminated: true, truncated: false, info: {} };
    const words = (action.answer ?? "").toLowerCase().split(/[^a-z]+/).filter(Boolean);
    const named = this.names.filter((name) => words.includes(name.toLowerCase()));
    const saysNone = words.includes("none") || words.includes("nobody");
    if (named.length === 0 && !saysNone) {
      return {
        observation: `No islander named in a box. Answer with the knights among ${this.names.join(", ")}, e.g. \\boxed{name, name}, or \\boxed{none}.`,
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    this.done = true;
    const truth = this.knights();
    const correct = named.length === truth.length && named.every((name) => truth.includes(name));
    if (correct) return { observation: "Correct: you have identified every knight.", reward: 1, terminated: true, truncated: false, info: { correct } };
    return {
      observation: `Wrong. The knights were: ${truth.length > 0 ? truth.join(", ") : "none"}.`,
      reward: 0,
      terminated: true,
      truncated: false,
      info: { correct },
    };
  }

  hint() {
    // Reveal roughly half the islanders; the agent still has to deduce the rest.
    const shown = this.names.slice(0, Math.ceil(this.names.length / 2));
    return shown.map((name) => `${name} is a ${this.kinds[this.names.indexOf(name)] ? "knight" : "knave"}.`).join(" ");
  }

  solve() {
    const truth = this.knights();
    return { text: `\\boxed{${truth.length > 0 ? truth.join(", ") : "none"}}` };
  }
}
