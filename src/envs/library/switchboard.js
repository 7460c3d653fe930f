// Switchboard: run switch experiments to find which switches causally influence each lamp.
class Environment {
  static meta = {
    name: "switchboard",
    skill: "Causal Inference",
    description:
      "Five switches drive three lamps through hidden logic gates (copy, invert, AND, OR, XOR), and a lamp may be wired through another lamp. Set the switches in up to twelve experiments, then report exactly which switches can influence each lamp.",
    maxTurns: 15,
    tools: [],
  };

  static SWITCHES = 5;
  static LAMPS = ["A", "B", "C"];
  static EXPERIMENTS = 12;
  static EXAMPLE_ANSWER = "A:1,2; B:3; C:4,5";

  static pick(items) {
    return items[Math.floor(Math.random() * items.length)];
  }

  // A random gate over distinct inputs; an input is {kind: "switch"|"lamp", index}.
  static randomGate(inputs) {
    const pool = inputs.slice();
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    if (Math.random() < 0.3) return { op: Environment.pick(["copy", "not"]), args: [pool[0]] };
    return { op: Environment.pick(["and", "or", "xor"]), args: [pool[0], pool[1]] };
  }

  // Lamp states for a switch setting (array of 0/1); lamps are evaluated in order, so C may read A or B.
  lamps(setting) {
    const on = [];
    for (const gate of this.gates) {
      const v = gate.args.map((a) => (a.kind === "switch" ? setting[a.index] : on[a.index]));
      const out = { copy: v[0], not: 1 - v[0], and: v[0] & v[1], or: v[0] | v[1], xor: v[0] ^ v[1] }[gate.op];
      on.push(out);
    }
    return on;
  }

  // Switch s influences lamp L iff some setting exists where flipping s alone changes L.
  influences() {
    const n = Environment.SWITCHES;
    const sets = Environment.LAMPS.map(() => new Set());
    for (let mask = 0; mask < 1 << n; mask++) {
      const setting = [];
      for (let s = 0; s < n; s++) setting.push((mask >> s) & 1);
      const base = this.lamps(setting);
      for (let s = 0; s < n; s++) {
        const flipped = setting.slice();
        flipped[s] ^= 1;
        const other = this.lamps(flipped);
        base.forEach((v, l) => {
          if (v !== other[l]) sets[l].add(s + 1);
        });
      }
    }
    return sets.map((set) => [...set].sort((a, b) => a - b));
  }

  static format(sets) {
    return Environment.LAMPS.map((lamp, l) => `${lamp}:${sets[l].length > 0 ? sets[l].join(",") : "none"}`).join("; ");
  }

  reset(seed) {
    const switches = [];
    for (let s = 0; s < Environment.SWITCHES; s++) switches.push({ kind: "switch", index: s });
    // Redraw until the lamps differ in what drives them and the example answer is not the truth.
    for (;;) {
      this.gates = [Environment.randomGate(switches), Environment.randomGate(switches)];
      const relay = Math.random() < 0.5;
      const lampInput = { kind: "lamp", index: Math.floor(Math.random() * 2) };
      this.gates.push(
        relay
          ? { op: Environment.pick(["and", "or", "xor"]), args: [lampInput, Environment.pick(switches)] }
          : Environment.randomGate(switches),
      );
      this.truth = this.influences();
      const keys = this.truth.map((s) => s.join(","));
      const total = keys.reduce((sum, k) => sum + k.split(",").length, 0);
      if (new Set(keys).size === 3 && total >= 4 && Environment.format(this.truth) !== Environment.EXAMPLE_ANSWER) break;
    }
    this.experiments = [];
    this.done = false;
    return {
      observation:
        `A panel has ${Environment.SWITCHES} switches (1-${Environment.SWITCHES}) and three lamps (A, B, C). Hidden wiring decides each lamp from the switches; a lamp may also be wired through another lamp. ` +
        `Run an experiment by setting all switches at once, e.g. \\boxed{10110} means switches 1, 3 and 4 on and 2 and 5 off; you see which lamps light. You may run up to ${Environment.EXPERIMENTS} experiments. ` +
        `Finally report, for each lamp, every switch that can change it in some setting, e.g. \\boxed{${Environment.EXAMPLE_ANSWER}}. The final report ends the game; it must be exactly right for full reward.`,
      info: { truth: Environment.format(this.truth) },
    };
  }

  static parseReport(answer) {
    const re = /([ABC])\s*[:=]\s*([0-9,\s]*|none)/gi;
    const sets = {};
    for (let m = re.exec(answer); m !== null; m = re.exec(answer)) {
      sets[m[1].toUpperCase()] = [...new Set((m[2].match(/[1-9]/g) ?? []).map(Number))].sort((a, b) => a - b);
    }
    return Environment.LAMPS.every((lamp) => sets[lamp]) ? Environment.LAMPS.map((lamp) => sets[lamp]) : null;
  }

  invalid(why) {
    return {
      observation: `${why} Run an experiment like \\boxed{10110} (${Environment.EXPERIMENTS - this.experiments.length} left) or give the final report like \\boxed{${Environment.EXAMPLE_ANSWER}}.`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { valid: false },
    };
  }

  step(action) {
    if (this.done) return { observation: "The panel is switched off.", reward: 0, terminated: true, truncated: false, info: {} };
    const answer = action.answer ?? "";
    if (/[ABC]\s*[:=]/i.test(answer)) {
      const report = Environment.parseReport(answer);
      if (report === null) return this.invalid("The report must list all three lamps A, B and C.");
      this.done = true;
      const right = report.filter((set, l) => set.join(",") === this.truth[l].join(",")).length;
      if (right === 3) return { observation: "Exactly right: you have mapped the wiring.", reward: 1, terminated: true, truncated: false, info: { right } };
      // A little credit per correct lamp, never enough to count as solved.
      return {
        observation: `${right} of 3 lamps are right. The true answer was ${Environment.format(this.truth)}.`,
        reward: 0.2 * right,
        terminated: true,
        truncated: false,
        info: { right },
      };
    }
    const bits = answer.replace(/[\s,]/g, "");
    if (!/^[01]+$/.test(bits) || bits.length !== Environment.SWITCHES) {
      return this.invalid(`An experiment sets all ${Environment.SWITCHES} switches as a string of 0s and 1s.`);
    }
    if (this.experiments.length >= Environment.EXPERIMENTS) return this.invalid("No experiments left: give your final report.");
    const setting = bits.split("").map(Number);
    this.experiments.push(bits);
    const lit = this.lamps(setting).map((v, l) => `${Environment.LAMPS[l]} ${v ? "on" : "off"}`);
    return {
      observation: `Experiment ${this.experiments.length} (${bits}): ${lit.join(", ")}. ${Environment.EXPERIMENTS - this.experiments.length} experiments left.`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: {},
    };
  }

  hint() {
    const name = (a) => (a.kind === "switch" ? `switch ${a.index + 1}` : `lamp ${Environment.LAMPS[a.index]}`);
    const words = this.gates.map((g, l) => {
      const [x, y] = g.args.map(name);
      const rule = {
        copy: `is on exactly when ${x} is on`,
        not: `is on exactly when ${x} is off`,
        and: `is on when ${x} and ${y} are both on`,
        or: `is on when ${x} or ${y} (or both) is on`,
        xor: `is on when exactly one of ${x} and ${y} is on`,
      }[g.op];
      return `Lamp ${Environment.LAMPS[l]} ${rule}.`;
    });
    return `The wiring: ${words.join(" ")}`;
  }

  solve() {
    return { text: `\\boxed{${Environment.format(this.truth)}}` };
  }
}
