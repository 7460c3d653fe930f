// Cargo loading: a two-constraint knapsack (weight and volume) where the greedy choice is never optimal.
class Environment {
  static meta = {
    name: "cargo-loading",
    skill: "Optimization",
    description:
      "Choose which of nine crates to load onto a truck limited in both weight and volume so that the cargo value is as high as possible. Three proposals, each answered with its value; only the true optimum counts as solved.",
    maxTurns: 6,
    tools: [],
  };

  static GOODS = ["tea", "copper wire", "silk", "olive oil", "books", "spices", "glassware", "coffee", "wool", "tools", "paint", "lamps"];
  static PROPOSALS = 3;
  static EXAMPLE = [2, 5, 8];

  static int(lo, hi) {
    return lo + Math.floor(Math.random() * (hi - lo + 1));
  }

  load(indices) {
    let weight = 0;
    let volume = 0;
    let value = 0;
    for (const i of indices) {
      weight += this.items[i].weight;
      volume += this.items[i].volume;
      value += this.items[i].value;
    }
    return { weight, volume, value, fits: weight <= this.maxWeight && volume <= this.maxVolume };
  }

  static members(mask, n) {
    const out = [];
    for (let i = 0; i < n; i++) if (mask & (1 << i)) out.push(i);
    return out;
  }

  // Greedy by value per unit of combined (normalised) size: the heuristic an agent reaches for first.
  greedyValue() {
    const order = this.items
      .map((it, i) => ({ i, score: it.value / (it.weight / this.maxWeight + it.volume / this.maxVolume) }))
      .sort((a, b) => b.score - a.score);
    const chosen = [];
    for (const { i } of order) if (this.load(chosen.concat(i)).fits) chosen.push(i);
    return this.load(chosen).value;
  }

  reset(seed) {
    const n = 9;
    for (;;) {
      const names = Environment.GOODS.slice();
      for (let i = names.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [names[i], names[j]] = [names[j], names[i]];
      }
      this.items = [];
      for (let i = 0; i < n; i++) {
        this.items.push({ name: names[i], weight: Environment.int(3, 20), volume: Environment.int(1, 10), value: Environment.int(10, 60) });
      }
      const totalWeight = this.items.reduce((s, it) => s + it.weight, 0);
      const totalVolume = this.items.reduce((s, it) => s + it.volume, 0);
      this.maxWeight = Math.round(totalWeight * (0.4 + Math.random() * 0.15));
      this.maxVolume = Math.round(totalVolume * (0.4 + Math.random() * 0.15));
      // Exhaustive search over all 512 loads.
      let best = { value: -1, mask: 0 };
      for (let mask = 0; mask < 1 << n; mask++) {
        const l = this.load(Environment.members(mask, n));
        if (l.fits && l.value > best.value) best = { value: l.value, mask };
      }
      this.best = best.value;
      this.bestSet = Environment.members(best.mask, n);
      const example = this.load(Environment.EXAMPLE.map((k) => k - 1));
      if (this.greedyValue() < this.best && !(example.fits && example.value === this.best)) break;
    }
    this.proposals = 0;
    this.done = false;
    const rows = this.items.map((it, i) => `${i + 1}. ${it.name}: ${it.weight} kg, ${it.volume} m3, worth ${it.value}`);
    return {
      observation:
        `A truck can carry at most ${this.maxWeight} kg and ${this.maxVolume} m3. Crates available:\n${rows.join("\n")}\n` +
        `Choose crates to maximise the total worth without exceeding either limit. Propose a load as crate numbers, e.g. \\boxed{${Environment.EXAMPLE.join(",")}}. ` +
        `You have ${Environment.PROPOSALS} proposals; each is answered with its weight, volume and worth, and the game ends as soon as you propose a best possible load.`,
      info: { best: this.best },
    };
  }

  step(action) {
    if (this.done) return { observation: "The truck has left.", reward: 0, terminated: true, truncated: false, info: {} };
    const numbers = ((action.answer ?? "").match(/\d+/g) ?? []).map(Number);
    const n = this.items.length;
    if (numbers.length === 0 || numbers.some((k) => k < 1 || k > n) || new Set(numbers).size !== numbers.length) {
      return {
        observation: `Invalid load: list distinct crate numbers from 1 to ${n}, e.g. \\boxed{${Environment.EXAMPLE.join(",")}}.`,
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    this.proposals++;
    const l = this.load(numbers.map((k) => k - 1));
    const left = Environment.PROPOSALS - this.proposals;
    const summary = `Load ${numbers.join(",")}: ${l.weight} kg, ${l.volume} m3, worth ${l.value}.`;
    if (l.fits && l.value === this.best) {
      this.done = true;
      return { observation: `${summary} That is the best possible load!`, reward: 1, terminated: true, truncated: false, info: { value: l.value } };
    }
    const verdict = l.fits ? "It fits, but a more valuable load exists." : "It exceeds the truck's limits.";
    if (left === 0) {
      this.done = true;
      // Partial credit for a good legal load, capped well below success.
      const reward = l.fits ? Math.round((0.5 * l.value * 1000) / this.best) / 1000 : 0;
      return { observation: `${summary} ${verdict} No proposals left; the best worth was ${this.best}.`, reward, terminated: true, truncated: false, info: { value: l.value } };
    }
    return { observation: `${summary} ${verdict} ${left} proposal${left > 1 ? "s" : ""} left.`, reward: 0, terminated: false, truncated: false, info: { value: l.value } };
  }

  hint() {
    const some = this.bestSet.slice(0, Math.ceil(this.bestSet.length / 2)).map((i) => i + 1);
    return `The best load is worth ${this.best}, and it includes crate${some.length > 1 ? "s" : ""} ${some.join(", ")}. The greedy value-per-size choice falls short.`;
  }

  solve() {
    return { text: `\\boxed{${this.bestSet.map((i) => i + 1).join(",")}}` };
  }
}
