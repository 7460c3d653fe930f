// Grid transform: infer a hidden two-stage grid rule (symmetry, then recolour/gravity/sort) from examples.
class Environment {
  static meta = {
    name: "grid-transform",
    skill: "Pattern Recognition",
    description:
      "Three input/output pairs of digit grids share one hidden rule: a rotation or reflection followed by a colour swap, recolouring, gravity, negative or row sort. Apply the rule to a new grid; the examples always pin the answer down uniquely.",
    maxTurns: 4,
    tools: [],
  };

  static COLORS = 5;
  static ATTEMPTS = 2;

  // The eight symmetries of the square, as functions of a grid (array of rows).
  static GEOMETRIC = [
    { name: "keep the orientation", f: (g) => g.map((row) => row.slice()) },
    { name: "rotate the grid 90 degrees clockwise", f: (g) => g[0].map((_, c) => g.map((row) => row[c]).reverse()) },
    { name: "rotate the grid 180 degrees", f: (g) => g.map((row) => row.slice().reverse()).reverse() },
    { name: "rotate the grid 90 degrees counter-clockwise", f: (g) => g[0].map((_, c) => g.map((row) => row[row.length - 1 - c])) },
    { name: "mirror the grid left-to-right", f: (g) => g.map((row) => row.slice().reverse()) },
    { name: "flip the grid upside down", f: (g) => g.map((row) => row.slice()).reverse() },
    { name: "transpose the grid (rows become columns)", f: (g) => g[0].map((_, c) => g.map((row) => row[c])) },
    { name: "transpose the grid along the anti-diagonal", f: (g) => g[0].map((_, c) => g.map((row) => row[row.length - 1 - c]).reverse()) },
  ];

  // Second-stage rules; built once because the uniqueness check enumerates all of them.
  static secondStage() {
    const k = Environment.COLORS;
    const rules = [{ name: "leave the colours as they are", f: (g) => g }];
    for (let a = 1; a <= k; a++) {
      for (let b = a + 1; b <= k; b++) {
        rules.push({ name: `swap colours ${a} and ${b}`, f: (g) => g.map((row) => row.map((v) => (v === a ? b : v === b ? a : v))) });
      }
    }
    for (let c = 1; c <= k; c++) {
      rules.push({ name: `paint every non-zero cell with colour ${c}`, f: (g) => g.map((row) => row.map((v) => (v ? c : 0))) });
      rules.push({ name: `take the negative: zeros become ${c}, every colour becomes 0`, f: (g) => g.map((row) => row.map((v) => (v ? 0 : c))) });
    }
    const fall = (line) => {
      const kept = line.filter((v) => v !== 0);
      return new Array(line.length - kept.length).fill(0).concat(kept);
    };
    const columns = (g, f) => {
      const cols = g[0].map((_, c) => f(g.map((row) => row[c])));
      return g.map((_, r) => cols.map((col) => col[r]));
    };
    rules.push({ name: "let the coloured cells fall to the bottom of each column", f: (g) => columns(g, fall) });
    rules.push({ name: "let the coloured cells rise to the top of each column", f: (g) => columns(g, (col) => fall(col.slice().reverse()).reverse()) });
    rules.push({ name: "push the coloured cells to the right end of each row", f: (g) => g.map(fall) });
    rules.push({ name: "push the coloured cells to the left end of each row", f: (g) => g.map((row) => fall(row.slice().reverse()).reverse()) });
    rules.push({ name: "sort each row in ascending order", f: (g) => g.map((row) => row.slice().sort((x, y) => x - y)) });
    return rules;
  }

  static randomGrid() {
    const rows = 3 + Math.floor(Math.random() * 3);
    const cols = 3 + Math.floor(Math.random() * 3);
    const g = [];
    for (let r = 0; r < rows; r++) {
      const row = [];
      for (let c = 0; c < cols; c++) row.push(Math.random() < 0.45 ? 0 : 1 + Math.floor(Math.random() * Environment.COLORS));
      g.push(row);
    }
    return g;
  }

  static show(g) {
    return g.map((row) => row.join("")).join("\n");
  }

  static same(a, b) {
    return Environment.show(a) === Environment.show(b);
  }

  reset(seed) {
    const second = Environment.secondStage();
    const all = [];
    for (const geo of Environment.GEOMETRIC) for (const col of second) all.push({ geo, col });
    // Draw rule and grids until every rule consistent with the examples gives the same test output.
    for (;;) {
      const rule = all[1 + Math.floor(Math.random() * (all.length - 1))];
      const apply = (g) => rule.col.f(rule.geo.f(g));
      const inputs = [0, 1, 2].map(() => Environment.randomGrid());
      const outputs = inputs.map(apply);
      const test = Environment.randomGrid();
      const answer = apply(test);
      if (Environment.same(answer, test) || outputs.some((o, i) => Environment.same(o, inputs[i]))) continue;
      const ambiguous = all.some((r) => {
        const f = (g) => r.col.f(r.geo.f(g));
        return inputs.every((g, i) => Environment.same(f(g), outputs[i])) && !Environment.same(f(test), answer);
      });
      if (ambiguous) continue;
      this.rule = `${rule.geo.name}, then ${rule.col.name}`;
      this.examples = inputs.map((g, i) => ({ input: g, output: outputs[i] }));
      this.test = test;
      this.answer = answer;
      break;
    }
    this.attemptsLeft = Environment.ATTEMPTS;
    this.done = false;
    const parts = ["Each example below turns an input grid of digits (0 = empty) into an output grid by the same hidden rule."];
    this.examples.forEach((ex, i) => {
      parts.push(`Example ${i + 1} input:\n${Environment.show(ex.input)}\nExample ${i + 1} output:\n${Environment.show(ex.output)}`);
    });
    parts.push(`Test input:\n${Environment.show(this.test)}`);
    parts.push(
      "Give the test output with rows separated by '/', e.g. \\boxed{012/340} for a grid of two rows. " +
        `You have ${Environment.ATTEMPTS} attempts; only a correct first attempt earns full reward.`,
    );
    return { observation: parts.join("\n\n"), info: { rule: this.rule } };
  }

  static parseGrid(text) {
    const rows = text
      .replace(/\\\\/g, "/")
      .split(/[/;|\n\]]+/)
      .map((row) => row.replace(/[^0-9]/g, ""))
      .filter((row) => row.length > 0);
    return rows.length > 0 ? rows.map((row) => row.split("").map(Number)) : null;
  }

  step(action) {
    if (this.done) return { observation: "The puzzle is over.", reward: 0, terminated: true, truncated: false, info: {} };
    const grid = action.answer === null ? null : Environment.parseGrid(action.answer);
    if (grid === null) {
      return {
        observation: "No grid found: give the output grid in a box, rows separated by '/', e.g. \\boxed{012/340}.",
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    this.attemptsLeft--;
    if (Environment.same(grid, this.answer)) {
      this.done = true;
      // Full reward only on the first attempt: success must mean the rule was found, not searched.
      const reward = this.attemptsLeft === Environment.ATTEMPTS - 1 ? 1 : 0.4;
      return { observation: "Correct: that is the output grid.", reward, terminated: true, truncated: false, info: { correct: true } };
    }
    const want = `${this.answer.length}x${this.answer[0].length}`;
    const sizeOk = grid.length === this.answer.length && grid.every((row) => row.length === this.answer[0].length);
    let feedback = `Incorrect: the output grid is ${want}, yours is ${grid.length} rows of lengths ${grid.map((row) => row.length).join(",")}.`;
    if (sizeOk) {
      let wrong = 0;
      grid.forEach((row, r) => {
        row.forEach((v, c) => {
          if (v !== this.answer[r][c]) wrong += 1;
        });
      });
      feedback = `Incorrect: ${wrong} of ${grid.length * grid[0].length} cells are wrong.`;
    }
    if (this.attemptsLeft === 0) {
      this.done = true;
      return { observation: `${feedback} No attempts left.`, reward: 0, terminated: true, truncated: false, info: { correct: false } };
    }
    return { observation: `${feedback} ${this.attemptsLeft} attempt left.`, reward: 0, terminated: false, truncated: false, info: { correct: false } };
  }

  hint() {
    return `The hidden rule: ${this.rule}.`;
  }

  solve() {
    return { text: `\\boxed{${this.answer.map((row) => row.join("")).join("/")}}` };
  }
}
