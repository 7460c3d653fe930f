/**
 * @module bench/sandbox-programs
 * The programs the sandbox benchmark plays: the library environment it names, and its light game
 * (a few arithmetic operations per step) written in JavaScript and in Python.
 */

/** The library environment of the heavy rows (it filters 5,040 candidates per step). */
export const ENV_NAME = "vault-cracker";

/** The light Python game: the oracle names a number the step only compares. */
export const LIGHT_PY = `class EchoEnv:
    meta = {"name": "echo", "skill": "Memory Recall", "description": "Repeat the number.", "maxTurns": 10, "tools": []}
    def reset(self, seed=None):
        self.n = random.randint(0, 999)
        self.turn = 0
        return "Say %d." % self.n, {}
    def step(self, action):
        self.turn += 1
        done = self.turn == 10
        return "ok", (1.0 if done else 0.0), done, False, {}
    def solve(self):
        return "\\\\boxed{%d}" % self.n
`;

/** The light JavaScript environment: the same game as LIGHT_PY, a few arithmetic operations a step. */
export const LIGHT_JS = `class Environment {
  static meta = { name: "echo", skill: "Memory Recall", description: "Repeat the number.", maxTurns: 10, tools: [] };
  reset(seed) {
    this.n = Math.floor(Math.random() * 1000);
    this.turn = 0;
    return { observation: "Say " + this.n + ".", info: {} };
  }
  step(action) {
    this.turn += 1;
    const done = this.turn === 10;
    return { observation: "ok", reward: done ? 1 : 0, terminated: done, truncated: false, info: {} };
  }
  hint() { return "say the number"; }
  solve() { return { text: "\\\\boxed{" + this.n + "}" }; }
}
`;
