// Lantern grid (Lights Out): pressing a lantern flips it and its four neighbours; darken the whole grid.
class Environment {
  static meta = {
    name: "lantern-grid",
    skill: "Spatial Reasoning",
    description:
      "A 6x6 grid of lanterns, some lit. Pressing a lantern toggles it and its orthogonal neighbours. Press one lantern per turn until every lantern is dark; the only solution takes 15 to 19 presses.",
    maxTurns: 35,
    tools: [],
  };

  static N = 6;
  static COLUMNS = "ABCDEF";

  reset(seed) {
    const n = Environment.N;
    // On a 6x6 grid every pattern has exactly one solution (the press matrix is invertible over
    // GF(2)), and presses commute and cancel in pairs: the solution is the set of scramble presses,
    // flipped by every press the agent makes. Scramble with 15-19 distinct presses.
    const cells = [];
    for (let i = 0; i < n * n; i++) cells.push(i);
    for (let i = cells.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [cells[i], cells[j]] = [cells[j], cells[i]];
    }
    const count = 15 + Math.floor(Math.random() * 5);
    this.lit = new Array(n * n).fill(0);
    this.needed = new Array(n * n).fill(0);
    for (const i of cells.slice(0, count)) this.toggle(i);
    this.presses = 0;
    this.done = false;
    const intro =
      "Lanterns hang in a 6x6 grid: columns A-F from left to right, rows 1-6 from top to bottom. '#' is lit, '.' is dark. " +
      "Pressing a lantern toggles it and the lanterns directly above, below, left and right of it (pressing it again undoes that). " +
      "Press one lantern per turn, e.g. \\boxed{C3}, until every lantern is dark. " +
      `You have ${Environment.meta.maxTurns} turns.\n`;
    return { observation: intro + this.board(), info: { minPresses: count } };
  }

  // Presses cell `i` (row-major index): flips it and its orthogonal neighbours.
  toggle(i) {
    const n = Environment.N;
    const r = Math.floor(i / n);
    const c = i % n;
    this.needed[i] ^= 1;
    this.lit[i] ^= 1;
    if (r > 0) this.lit[i - n] ^= 1;
    if (r < n - 1) this.lit[i + n] ^= 1;
    if (c > 0) this.lit[i - 1] ^= 1;
    if (c < n - 1) this.lit[i + 1] ^= 1;
  }

  litCount() {
    return this.lit.reduce((sum, x) => sum + x, 0);
  }

  static cellName(i) {
    return Environment.COLUMNS[i % Environment.N] + String(Math.floor(i / Environment.N) + 1);
  }

  board() {
    const n = Environment.N;
    const lines = ["  " + Environment.COLUMNS.split("").join(" ")];
    for (let r = 0; r < n; r++) {
      const cells = [];
      for (let c = 0; c < n; c++) cells.push(this.lit[r * n + c] ? "#" : ".");
      lines.push(`${r + 1} ${cells.join(" ")}`);
    }
    return `${lines.join("\n")}\nLit lanterns: ${this.litCount()}.`;
  }

  step(action) {
    if (this.done) return { observation: "Every lantern is already dark.", reward: 0, terminated: true, truncated: false, info: {} };
    const raw = (action.answer ?? action.text ?? "").trim().toUpperCase().replace(/\s+/g, "");
    const m = /^([A-F])([1-6])$/.exec(raw);
    if (!m) {
      return {
        observation: "Unrecognised press: answer with one lantern as column letter A-F and row number 1-6, e.g. \\boxed{C3}.\n" + this.board(),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    const i = (Number(m[2]) - 1) * Environment.N + Environment.COLUMNS.indexOf(m[1]);
    this.toggle(i);
    this.presses++;
    if (this.litCount() === 0) {
      this.done = true;
      return { observation: `You press ${m[1]}${m[2]}: every lantern is dark after ${this.presses} presses!`, reward: 1, terminated: true, truncated: false, info: { presses: this.presses } };
    }
    return { observation: `You press ${m[1]}${m[2]}.\n${this.board()}`, reward: 0, terminated: false, truncated: false, info: {} };
  }

  // The unique solution from the current state: scramble presses not yet cancelled by the agent.
  solutionCells() {
    const cells = [];
    for (let i = 0; i < Environment.N * Environment.N; i++) if (this.needed[i]) cells.push(Environment.cellName(i));
    return cells;
  }

  hint() {
    if (this.litCount() === 0) return "Every lantern is already dark.";
    const cells = this.solutionCells();
    return `Press each of these ${cells.length} lanterns exactly once, in any order: ${cells.join(", ")}.`;
  }

  solve() {
    const cells = this.solutionCells();
    return { text: `\\boxed{${cells.length > 0 ? cells[0] : "A1"}}` };
  }
}
