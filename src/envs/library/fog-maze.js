// Fog maze: walk out of a maze one step per turn, seeing only the passages of the current cell.
class Environment {
  static meta = {
    name: "fog-maze",
    skill: "Spatial Reasoning",
    description:
      "Walk through a 6x6 maze in thick fog, one step per turn, toward a known exit cell. Only the open passages of the current cell are visible, so the agent must keep its own map of where it has been.",
    maxTurns: 40,
    tools: [],
  };

  static SIZE = 6;
  // Direction bits, row/column deltas and names; OPPOSITE[d] is the bit seen from the other side.
  static DIRS = [
    { bit: 1, dr: -1, dc: 0, name: "north" },
    { bit: 2, dr: 0, dc: 1, name: "east" },
    { bit: 4, dr: 1, dc: 0, name: "south" },
    { bit: 8, dr: 0, dc: -1, name: "west" },
  ];
  static OPPOSITE = { 1: 4, 2: 8, 4: 1, 8: 2 };
  static ALIASES = { n: 0, north: 0, up: 0, e: 1, east: 1, right: 1, s: 2, south: 2, down: 2, w: 3, west: 3, left: 3 };

  reset(seed) {
    const n = Environment.SIZE;
    // Regenerate until some cell lies 15..22 steps from the start: the walk must be long.
    for (;;) {
      this.open = Environment.carve(n);
      this.start = Math.floor(Math.random() * n * n);
      const fromStart = this.distances(this.start);
      const far = [];
      for (let i = 0; i < n * n; i++) if (fromStart[i] >= 15 && fromStart[i] <= 22) far.push(i);
      if (far.length > 0) {
        this.exit = far[Math.floor(Math.random() * far.length)];
        break;
      }
    }
    // Distances to the exit let the oracle and the hint walk the shortest route from anywhere.
    this.toExit = this.distances(this.exit);
    this.pos = this.start;
    this.moves = 0;
    this.done = false;
    const intro =
      `You are lost in a foggy ${n}x${n} maze of cells. Rows are numbered 1-${n} from north to south, columns 1-${n} from west to east. ` +
      `The exit is at row ${this.row(this.exit)}, column ${this.col(this.exit)}. ` +
      "You can only see which passages leave the cell you stand in. Each turn move one cell: answer \\boxed{north}, \\boxed{east}, \\boxed{south} or \\boxed{west}. " +
      `You have ${Environment.meta.maxTurns} turns.\n`;
    return { observation: intro + this.describe(), info: { shortest: this.toExit[this.start] } };
  }

  // Randomized depth-first carving of a perfect maze, then a few extra openings so loops exist.
  static carve(n) {
    const open = new Array(n * n).fill(0);
    const seen = new Array(n * n).fill(false);
    const stack = [Math.floor(Math.random() * n * n)];
    seen[stack[0]] = true;
    while (stack.length > 0) {
      const cur = stack[stack.length - 1];
      const options = [];
      for (const d of Environment.DIRS) {
        const r = Math.floor(cur / n) + d.dr;
        const c = (cur % n) + d.dc;
        if (r >= 0 && r < n && c >= 0 && c < n && !seen[r * n + c]) options.push({ d, next: r * n + c });
      }
      if (options.length === 0) {
        stack.pop();
        continue;
      }
      const { d, next } = options[Math.floor(Math.random() * options.length)];
      open[cur] |= d.bit;
      open[next] |= Environment.OPPOSITE[d.bit];
      seen[next] = true;
      stack.push(next);
    }
    for (let k = 0; k < 3; k++) {
      const cell = Math.floor(Math.random() * n * n);
      const d = Environment.DIRS[Math.floor(Math.random() * 4)];
      const r = Math.floor(cell / n) + d.dr;
      const c = (cell % n) + d.dc;
      if (r < 0 || r >= n || c < 0 || c >= n) continue;
      open[cell] |= d.bit;
      open[r * n + c] |= Environment.OPPOSITE[d.bit];
    }
    return open;
  }

  distances(from) {
    const n = Environment.SIZE;
    const dist = new Array(n * n).fill(-1);
    dist[from] = 0;
    const queue = [from];
    for (let q = 0; q < queue.length; q++) {
      const cur = queue[q];
      for (const d of Environment.DIRS) {
        if (!(this.open[cur] & d.bit)) continue;
        const next = cur + d.dr * n + d.dc;
        if (dist[next] === -1) {
          dist[next] = dist[cur] + 1;
          queue.push(next);
        }
      }
    }
    return dist;
  }

  row(cell) {
    return Math.floor(cell / Environment.SIZE) + 1;
  }

  col(cell) {
    return (cell % Environment.SIZE) + 1;
  }

  describe() {
    const exits = Environment.DIRS.filter((d) => this.open[this.pos] & d.bit).map((d) => d.name);
    return `You stand at row ${this.row(this.pos)}, column ${this.col(this.pos)}. Open passages: ${exits.join(", ")}.`;
  }

  parseMove(action) {
    const raw = (action.answer ?? action.text ?? "").trim().toLowerCase().replace(/[^a-z]/g, "");
    return  Object.hasOwn(Environment.ALIASES, raw) ? Environment.ALIASES[raw] : -1;
  }

  step(action) {
    if (this.done) return { observation: "You are already out of the maze.", reward: 0, terminated: true, truncated: false, info: {} };
    const dir = this.parseMove(action);
    if (dir === -1) {
      return {
        observation: "Unrecognised move: answer with exactly one of \\boxed{north}, \\boxed{east}, \\boxed{south}, \\boxed{west}.\n" + this.describe(),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    this.moves++;
    const d = Environment.DIRS[dir];
    if (!(this.open[this.pos] & d.bit)) {
      return {
        observation: `A wall blocks the way ${d.name}; you stay where you are.\n` + this.describe(),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { bumped: true },
      };
    }
    this.pos += d.dr * Environment.SIZE + d.dc;
    if (this.pos === this.exit) {
      this.done = true;
      return {
        observation: `You step ${d.name} and walk out of the fog through the exit after ${this.moves} moves!`,
        reward: 1,
        terminated: true,
        truncated: false,
        info: { moves: this.moves },
      };
    }
    return { observation: `You move ${d.name}.\n` + this.describe(), reward: 0, terminated: false, truncated: false, info: {} };
  }

  // The shortest route from the current cell, as direction names.
  route() {
    const n = Environment.SIZE;
    const names = [];
    let cur = this.pos;
    while (cur !== this.exit) {
      const d = Environment.DIRS.find((x) => this.open[cur] & x.bit && this.toExit[cur + x.dr * n + x.dc] === this.toExit[cur] - 1);
      names.push(d.name);
      cur += d.dr * n + d.dc;
    }
    return names;
  }

  hint() {
    const steps = this.route();
    if (steps.length === 0) return "You are already at the exit.";
    return `The shortest route from your current cell to the exit takes ${steps.length} moves: ${steps.join(", ")}.`;
  }

  solve() {
    const steps = this.route();
    return { text: `\\boxed{${steps.length > 0 ? steps[0] : "north"}}` };
  }
}
