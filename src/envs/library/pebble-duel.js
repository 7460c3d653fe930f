// Pebble duel: a multi-pile take-away game (take 1..k from one pile) against a scripted opponent.
class Environment {
  static meta = {
    name: "pebble-duel",
    skill: "Strategic Planning",
    description:
      "Three piles of pebbles; players alternate taking between 1 and k pebbles from a single pile, and whoever takes the last pebble wins. The opening position is a win for the agent, but the scripted opponent punishes every slip with perfect play.",
    maxTurns: 20,
    tools: [],
  };

  reset(seed) {
    this.limit = 2 + Math.floor(Math.random() * 3);
    // The agent moves first from a position with a non-zero nim-sum, so it can force a win.
    do {
      this.piles = [0, 1, 2].map(() => 4 + Math.floor(Math.random() * 12));
    } while (this.nimSum() === 0);
    // The opponent's own generator: its random moves must not depend on how often hint/solve ran.
    this.rng = Math.floor(Math.random() * 2147483646) + 1;
    this.done = false;
    return {
      observation:
        `Pebble duel. There are three piles: ${this.describe()}. On each turn a player takes between 1 and ${this.limit} pebbles from ONE pile. ` +
        "Whoever takes the last pebble wins. You move first; answer with the pile number and how many pebbles to take, e.g. \\boxed{3 1} takes 1 pebble from pile 3.",
      info: { limit: this.limit, piles: this.piles.slice() },
    };
  }

  describe() {
    return this.piles.map((n, i) => `pile ${i + 1}: ${n}`).join(", ");
  }

  // Sprague-Grundy: a pile of n under "take 1..k" has value n mod (k+1); positions with XOR 0 are lost.
  nimSum() {
    return this.piles.reduce((x, n) => x ^ n % (this.limit + 1), 0);
  }

  // A move that leaves nim-sum 0, or null when none exists.
  winningMove() {
    const total = this.nimSum();
    if (total === 0) return null;
    for (let i = 0; i < this.piles.length; i++) {
      const value = this.piles[i] % (this.limit + 1);
      const target = value ^ total;
      if (target < value) return { pile: i, take: value - target };
    }
    return null;
  }

  nextRandom() {
    this.rng = (this.rng * 48271) % 2147483647;
    return this.rng / 2147483647;
  }

  // Perfect play when winning; otherwise a random legal move, hoping the agent slips.
  opponentMove() {
    const win = this.winningMove();
    if (win) return win;
    const options = [];
    this.piles.forEach((n, pile) => {
      for (let take = 1; take <= Math.min(n, this.limit); take++) options.push({ pile, take });
    });
    return options[Math.floor(this.nextRandom() * options.length)];
  }

  invalid(why) {
    return {
      observation: `${why} Answer with the pile number and a count from 1 to ${this.limit}, e.g. \\boxed{3 1}. Piles: ${this.describe()}.`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { valid: false },
    };
  }

  step(action) {
    if (this.done) return { observation: "The duel is over.", reward: 0, terminated: true, truncated: false, info: {} };
    const numbers = (action.answer ?? "").match(/\d+/g) ?? [];
    if (numbers.length !== 2) return this.invalid("Give exactly two numbers: the pile, then how many pebbles to take.");
    const pile = Number(numbers[0]) - 1;
    const take = Number(numbers[1]);
    if (pile < 0 || pile >= this.piles.length) return this.invalid(`There is no pile ${numbers[0]}.`);
    if (take < 1 || take > this.limit) return this.invalid(`You may take between 1 and ${this.limit} pebbles.`);
    if (take > this.piles[pile]) return this.invalid(`Pile ${pile + 1} has only ${this.piles[pile]} pebbles.`);
    this.piles[pile] -= take;
    const mine = `You take ${take} from pile ${pile + 1}.`;
    if (this.piles.every((n) => n === 0)) {
      this.done = true;
      return { observation: `${mine} You took the last pebble: you win!`, reward: 1, terminated: true, truncated: false, info: { won: true } };
    }
    const reply = this.opponentMove();
    this.piles[reply.pile] -= reply.take;
    const theirs = `The opponent takes ${reply.take} from pile ${reply.pile + 1}.`;
    if (this.piles.every((n) => n === 0)) {
      this.done = true;
      return { observation: `${mine} ${theirs} The opponent took the last pebble: you lose.`, reward: 0, terminated: true, truncated: false, info: { won: false } };
    }
    return { observation: `${mine} ${theirs} Piles: ${this.describe()}. Your move.`, reward: 0, terminated: false, truncated: false, info: {} };
  }

  hint() {
    const k = this.limit + 1;
    const values = this.piles.map((n) => n % k);
    const win = this.winningMove();
    const plan = `A pile of n pebbles is worth n mod ${k}; the player to move loses when the XOR of the pile values is 0 (now ${values.join(" XOR ")} = ${this.nimSum()}). Always move to XOR 0.`;
    return win ? `${plan} Winning move now: take ${win.take} from pile ${win.pile + 1}.` : `${plan} The current position is lost against perfect play.`;
  }

  solve() {
    const win = this.winningMove();
    if (win) return { text: `\\boxed{${win.pile + 1} ${win.take}}` };
    // Lost position: stall with the smallest move from the largest pile.
    const largest = this.piles.indexOf(Math.max(...this.piles));
    return { text: `\\boxed{${largest + 1} 1}` };
  }
}
