/**
 * @module envs/testing/python-library
 * TEST FIXTURES: library games rewritten in Python (the reference's program format), with a port
 * of the sandbox's seeded `Math.random` (sfc32 seeded by splitmix32, src/sandbox/prelude.ts) so
 * that the same seed and actions give the same episode as the JavaScript originals.
 */

/** Python: the JavaScript sandbox's `Math.random`, bit for bit, and the host's `\boxed{}` rule. */
const PRELUDE = String.raw`
M32 = 0xFFFFFFFF

class JsRandom:
    """sfc32 seeded by splitmix32, as the JavaScript sandbox's Math.random."""
    def __init__(self, seed=0):
        lo, hi = seed & M32, (seed // 4294967296) & M32
        self.sm = lo
        self.s0 = self._splitmix()
        self.s1 = self._splitmix()
        self.sm = hi ^ self.s0
        self.s2 = self._splitmix()
        self.s3 = self._splitmix()
        for _ in range(15):
            self._next32()

    def _splitmix(self):
        self.sm = (self.sm + 0x9E3779B9) & M32
        z = self.sm
        z = ((z ^ (z >> 16)) * 0x85EBCA6B) & M32
        z = ((z ^ (z >> 13)) * 0xC2B2AE35) & M32
        return (z ^ (z >> 16)) & M32

    def _next32(self):
        t = (self.s0 + self.s1 + self.s3) & M32
        self.s3 = (self.s3 + 1) & M32
        self.s0 = self.s1 ^ (self.s1 >> 9)
        self.s1 = (self.s2 + (self.s2 << 3)) & M32
        self.s2 = ((self.s2 << 21) | (self.s2 >> 11)) & M32
        self.s2 = (self.s2 + t) & M32
        return t

    def random(self):
        x = self._next32() >> 5
        y = self._next32() >> 6
        return (x * 67108864 + y) / 9007199254740992


def boxed(text):
    """The content of the last \boxed{...} (braces balanced), trimmed; else None."""
    start = text.rfind("\\boxed{")
    while start >= 0:
        depth, i = 1, start + 7
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            return text[start + 7:i - 1].strip()
        start = text.rfind("\\boxed{", 0, start)
    return None
`;

/** vault-cracker (src/envs/library/vault-cracker.js) in Python. */
export const VAULT_CRACKER_PY = String.raw`"""Generated game for Logical Deduction"""
${PRELUDE}

class VaultCrackerEnv:
    """Find a secret 4-digit code from per-digit feedback."""
    meta = {
        "name": "vault-cracker",
        "skill": "Logical Deduction",
        "description": "Find a secret 4-digit code (digits distinct). After each guess the vault says which digits are in the right place and which are in the code but misplaced.",
        "maxTurns": 10,
        "tools": [],
    }

    def reset(self, seed=None):
        rng = JsRandom(seed)
        digits = list(range(10))
        for i in range(9, 0, -1):
            j = math.floor(rng.random() * (i + 1))
            digits[i], digits[j] = digits[j], digits[i]
        self.code = "".join(str(d) for d in digits[:4])
        self.guesses = []
        self.done = False
        self.candidates = [s for s in ("%04d" % n for n in range(10000)) if len(set(s)) == 4]
        return ("A vault has a secret 4-digit code with 4 distinct digits. Guess it: answer with \\boxed{dddd}. "
                "After each guess you learn how many digits are in the right place (hits) and how many are in the code but elsewhere (near). "
                "You have 10 guesses."), {}

    @staticmethod
    def score(code, guess):
        hits = sum(1 for i in range(4) if guess[i] == code[i])
        near = sum(1 for i in range(4) if guess[i] != code[i] and guess[i] in code)
        return hits, near

    def step(self, action):
        if self.done:
            return "The vault is closed.", 0, True, False, {}
        guess = re.sub(r"\s+", "", boxed(action) or "")
        if not re.fullmatch(r"\d{4}", guess) or len(set(guess)) != 4:
            return "Invalid guess: give exactly 4 distinct digits as \\boxed{dddd}.", 0, False, False, {"valid": False}
        hits, near = self.score(self.code, guess)
        self.guesses.append(guess)
        self.candidates = [c for c in self.candidates if self.score(c, guess) == (hits, near)]
        if hits == 4:
            self.done = True
            return guess + ": the vault opens!", 1, True, False, {"guesses": len(self.guesses)}
        return "%s: %d hits, %d near. %d guesses left." % (guess, hits, near, 10 - len(self.guesses)), 0, False, False, {"hits": hits, "near": near}

    def hint(self):
        return "The code starts with %s and ends with %s." % (self.code[0], self.code[3])

    def solve(self):
        return "\\boxed{" + self.candidates[0] + "}"
`;

/** counterfeit-coin (src/envs/library/counterfeit-coin.js) in Python. */
export const COUNTERFEIT_COIN_PY = String.raw`"""Generated game for Logical Deduction"""
${PRELUDE}

class CounterfeitCoinEnv:
    """Find the one fake coin with three weighings."""
    meta = {
        "name": "counterfeit-coin",
        "skill": "Logical Deduction",
        "description": "Among up to 27 identical-looking coins one is counterfeit: either known to be heavier, or (with up to 12 coins) heavier or lighter, unknown which. Use at most three balance-scale weighings, chosen adaptively, then name the fake coin.",
        "maxTurns": 6,
        "tools": [],
    }
    WEIGHINGS = 3

    def reset(self, seed=None):
        rng = JsRandom(seed)
        self.known_heavy = rng.random() < 0.5
        self.coins = 10 + math.floor(rng.random() * 18) if self.known_heavy else 6 + math.floor(rng.random() * 7)
        self.fake = 1 + math.floor(rng.random() * self.coins)
        self.heavy = self.known_heavy or rng.random() < 0.5
        self.hint_offset = math.floor(rng.random() * 4)
        self.left = self.WEIGHINGS
        self.log = []
        self.done = False
        if self.known_heavy:
            rule = "Exactly one is counterfeit, and it is HEAVIER than the others. Name it, e.g. \\boxed{coin 5}."
        else:
            rule = "Exactly one is counterfeit; it is either heavier or lighter than the others, you do not know which. Name it and say which, e.g. \\boxed{coin 5 lighter}."
        observation = ("You have %d coins numbered 1-%d. %s " % (self.coins, self.coins, rule)
                       + "You may use a balance scale at most 3 times; naming a coin ends the game. "
                       + "To weigh, put the same number of coins on each pan, e.g. \\boxed{1,2,3 vs 4,5,6}.")
        return observation, {"fake": self.fake, "heavy": self.heavy}

    def _plural(self):
        return "%d weighing%s" % (self.left, "" if self.left == 1 else "s")

    def invalid(self, why):
        naming = "\\boxed{coin 5}" if self.known_heavy else "\\boxed{coin 5 lighter}"
        return "%s Name the fake like %s, or weigh with e.g. \\boxed{1,2 vs 3,4} (%s left)." % (why, naming, self._plural()), 0, False, False, {"valid": False}

    def weigh(self, left, right):
        both = left + right
        if not left or len(left) != len(right):
            return self.invalid("Both pans need the same, non-zero number of coins.")
        if any(c < 1 or c > self.coins for c in both):
            return self.invalid("Coins are numbered 1 to %d." % self.coins)
        if len(set(both)) != len(both):
            return self.invalid("A coin can only be in one place at a time.")
        if self.left == 0:
            return self.invalid("The scale is gone: no weighings left, name the fake coin now.")
        self.left -= 1
        sign = 1 if self.heavy else -1
        tilt = sign if self.fake in left else -sign if self.fake in right else 0
        outcome = "the LEFT pan is heavier" if tilt > 0 else "the RIGHT pan is heavier" if tilt < 0 else "the pans BALANCE"
        line = "%s vs %s: %s" % (",".join(map(str, left)), ",".join(map(str, right)), outcome)
        self.log.append(line)
        return "Weighing %d: %s. %s left." % (len(self.log), line, self._plural()), 0, False, False, {}

    def step(self, action):
        if self.done:
            return "The coins have been put away.", 0, True, False, {}
        answer = (boxed(action) or "").lower()
        pans = re.split(r"\s+vs\.?\s+|\s+v\s+|\||\s+versus\s+|\s+against\s+", answer)
        side = lambda t: [int(n) for n in re.findall(r"\d+", t)]
        if len(pans) == 2:
            return self.weigh(side(pans[0]), side(pans[1]))
        numbers = side(answer)
        if len(numbers) != 1:
            return self.invalid("Give either a weighing or exactly one coin number.")
        said = True if re.search("heav", answer) else False if re.search("light", answer) else None
        if not self.known_heavy and said is None:
            return self.invalid("Also say whether the fake is heavier or lighter.")
        self.done = True
        right = numbers[0] == self.fake and (self.known_heavy or said == self.heavy)
        truth = "coin %d%s" % (self.fake, "" if self.known_heavy else ", heavier" if self.heavy else ", lighter")
        if right:
            return "Correct: the counterfeit is %s." % truth, 1, True, False, {"correct": True}
        return "Wrong: the counterfeit was %s." % truth, 0, True, False, {"correct": False}

    def hint(self):
        start = max(1, min(self.fake - self.hint_offset, self.coins - 3))
        block = [c for c in range(start, start + 4) if c <= self.coins]
        weight = "" if self.known_heavy else " It is %s than the genuine coins." % ("heavier" if self.heavy else "lighter")
        return "The counterfeit is one of coins %s.%s Split candidates into three groups of nearly equal size for every weighing." % (", ".join(map(str, block)), weight)

    def solve(self):
        return "\\boxed{coin %d%s}" % (self.fake, "" if self.known_heavy else " heavier" if self.heavy else " lighter")
`;
