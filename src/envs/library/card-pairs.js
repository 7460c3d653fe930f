// Card pairs (Concentration): flip two cards a turn and remember every face seen to match all 15 pairs.
class Environment {
  static meta = {
    name: "card-pairs",
    skill: "Memory Recall",
    description:
      "Thirty face-down cards hide fifteen pairs of pictures. Each turn flip two cards; a matching pair is removed, otherwise both turn face down again and are never shown again. Clear the table within the turn limit by remembering what was seen.",
    maxTurns: 40,
    tools: [],
  };

  static PICTURES = [
    "anchor", "banjo", "cactus", "dragon", "eagle", "falcon", "guitar", "harp", "igloo", "jaguar",
    "kettle", "lantern", "mango", "needle", "otter", "parrot", "quill", "rocket", "saddle", "tulip",
    "umbrella", "violin", "walrus", "yacht", "zebra",
  ];
  static ROWS = 5;
  static COLS = 6;

  reset(seed) {
    const pictures = Environment.PICTURES.slice();
    Environment.shuffle(pictures);
    const pairs = Environment.ROWS * Environment.COLS / 2;
    this.faces = [];
    for (let k = 0; k < pairs; k++) this.faces.push(pictures[k], pictures[k]);
    Environment.shuffle(this.faces);
    this.matched = new Array(this.faces.length).fill(false);
    this.pairsLeft = pairs;
    this.turns = 0;
    this.done = false;
    const intro =
      `${this.faces.length} cards lie face down, numbered 1-${this.faces.length}; they hide ${pairs} pairs of pictures. ` +
      "Each turn flip two different face-down cards by answering with their numbers, e.g. \\boxed{4 19}. " +
      "If the pictures match, the pair is removed; if not, both are turned face down again and will not be shown again, so remember them. " +
      `Remove all ${pairs} pairs within ${Environment.meta.maxTurns} turns.\n`;
    return { observation: intro + this.board(), info: {} };
  }

  static shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
  }

  board() {
    const lines = [];
    for (let r = 0; r < Environment.ROWS; r++) {
      const cells = [];
      for (let c = 0; c < Environment.COLS; c++) {
        const i = r * Environment.COLS + c;
        cells.push(this.matched[i] ? "--" : String(i + 1).padStart(2, " "));
      }
      lines.push(cells.join(" "));
    }
    return `Face-down cards (-- = removed):\n${lines.join("\n")}\nPairs left: ${this.pairsLeft}.`;
  }

  invalid(why) {
    return {
      observation: `${why} Answer with two different face-down card numbers, e.g. \\boxed{4 19}.\n${this.board()}`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { valid: false },
    };
  }

  step(action) {
    if (this.done) return { observation: "The table is already clear.", reward: 0, terminated: true, truncated: false, info: {} };
    const raw = action.answer ?? action.text ?? "";
    const numbers = raw.match(/\d+/g) ?? [];
    if (numbers.length !== 2) return this.invalid("Please flip exactly two cards.");
    const [a, b] = numbers.map((s) => Number(s) - 1);
    const n = this.faces.length;
    if (a < 0 || a >= n || b < 0 || b >= n) return this.invalid(`Card numbers run from 1 to ${n}.`);
    if (a === b) return this.invalid("The two cards must be different.");
    if (this.matched[a] || this.matched[b]) return this.invalid(`Card ${this.matched[a] ? a + 1 : b + 1} was already removed.`);
    this.turns++;
    const seen = `Card ${a + 1} shows ${this.faces[a]}, card ${b + 1} shows ${this.faces[b]}`;
    if (this.faces[a] !== this.faces[b]) {
      return {
        observation: `${seen}: no match, both are turned face down again.\n${this.board()}`,
        reward: 0,
        terminated: false,
        truncated: false,
        info: { match: false },
      };
    }
    this.matched[a] = true;
    this.matched[b] = true;
    this.pairsLeft--;
    // Each pair is worth an equal share, so the return reaches 1 exactly when the table is clear.
    const reward = 1 / (n / 2);
    if (this.pairsLeft === 0) {
      this.done = true;
      return { observation: `${seen}: a match! The table is clear after ${this.turns} turns.`, reward, terminated: true, truncated: false, info: { turns: this.turns } };
    }
    return { observation: `${seen}: a match! The pair is removed.\n${this.board()}`, reward, terminated: false, truncated: false, info: { match: true } };
  }

  // Face-down pairs as [first, second] card indices, in card order.
  pairs() {
    const result = [];
    for (let i = 0; i < this.faces.length; i++) {
      if (this.matched[i]) continue;
      const j = this.faces.indexOf(this.faces[i], i + 1);
      if (j !== -1) result.push([i, j]);
    }
    return result;
  }

  hint() {
    const list = this.pairs().map(([i, j]) => `${i + 1}&${j + 1}`);
    return list.length === 0 ? "The table is clear." : `Matching face-down pairs: ${list.join(", ")}.`;
  }

  solve() {
    const [first] = this.pairs();
    return { text: first ? `\\boxed{${first[0] + 1} ${first[1] + 1}}` : "\\boxed{1 2}" };
  }
}
