/**
 * @module envs/testing/python-prelude
 * TEST FIXTURES' runtime: the JavaScript sandbox's seeded `Math.random` in Python, bit for bit
 * (sfc32 seeded by splitmix32, src/sandbox/prelude.ts), the host's `\boxed{}` rule and
 * JSON.stringify's numbers, for library games ported to Python; and a game's meta as a literal.
 */

/** Python: the JavaScript sandbox's `Math.random`, bit for bit, and the host's `\boxed{}` rule. */
export const PYTHON_PRELUDE = String.raw`
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


def js(value):
    """A value as JavaScript's JSON.stringify would write it: integral floats without ".0"."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: js(v) for k, v in value.items()}
    if isinstance(value, list):
        return [js(v) for v in value]
    return value


def js_json(value):
    """JSON.stringify(value)."""
    return json.dumps(js(value), separators=(",", ":"), ensure_ascii=False)


def js_str(number):
    """String(number) for a JavaScript number."""
    return str(js(number))
`;

/** A game's `meta` as a Python literal (its JSON: these hold no true, false or null). */
export function pythonMeta(meta: {
  name: string;
  skill: string;
  description: string;
  maxTurns: number;
  tools?: unknown[];
}): string {
  return JSON.stringify({ ...meta, tools: meta.tools ?? [] });
}
