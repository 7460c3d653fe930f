// The Python backend's parts: the seccomp program's bytes, language detection, missing tools,
// and determinism across processes (seeded random, fixed string hashing).
import { describe, expect, it } from "vitest";
import { resolveProgram } from "../../envs/index.js";
import { VAULT_CRACKER_PY } from "../../envs/testing/python-library.js";
import { loadProgram } from "../index.js";
import { ProgramEnv } from "../program-env.js";
import { DEFAULT_LIMITS } from "../types.js";
import {
  createPythonBackend,
  detectProgramLanguage,
  findJailTools,
  type PythonBackendOptions,
  programLanguageOfPath,
} from "./index.js";
import { buildSeccompFilter, DENIED_SYSCALLS } from "./seccomp.js";

/** Whether the jail starts here and runs under `setarch -R` (a container may refuse it). */
function setarchWorks(): boolean {
  try {
    return findJailTools().setarch !== null;
  } catch {
    return false;
  }
}

/** One `struct sock_filter` as [code, jt, jf, k]. */
function insn(filter: Buffer, i: number): [number, number, number, number] {
  return [
    filter.readUInt16LE(i * 8),
    filter.readUInt8(i * 8 + 2),
    filter.readUInt8(i * 8 + 3),
    filter.readUInt32LE(i * 8 + 4),
  ];
}

describe("the seccomp filter", () => {
  it("checks the architecture, refuses x32 and each denied syscall, and allows the rest", () => {
    const filter = buildSeccompFilter("x64");
    const count = filter.length / 8;
    expect(count).toBe(4 + 2 + 2 * DENIED_SYSCALLS.length + 1);
    expect(insn(filter, 0)).toEqual([0x20, 0, 0, 4]);
    expect(insn(filter, 1)).toEqual([0x15, 1, 0, 0xc000003e]);
    expect(insn(filter, 2)).toEqual([0x06, 0, 0, 0x80000000]);
    expect(insn(filter, 3)).toEqual([0x20, 0, 0, 0]);
    expect(insn(filter, 4)).toEqual([0x35, 0, 1, 0x40000000]);
    expect(insn(filter, 5)).toEqual([0x06, 0, 0, 0x00050001]);
    // socket (41) first: EPERM; clone3 (435): ENOSYS, so libc falls back to clone, which is refused.
    expect(insn(filter, 6)).toEqual([0x15, 0, 1, 41]);
    expect(insn(filter, 7)).toEqual([0x06, 0, 0, 0x00050001]);
    const clone3 = DENIED_SYSCALLS.indexOf("clone3");
    expect(insn(filter, 6 + 2 * clone3)).toEqual([0x15, 0, 1, 435]);
    expect(insn(filter, 7 + 2 * clone3)).toEqual([0x06, 0, 0, 0x00050026]);
    expect(insn(filter, count - 1)).toEqual([0x06, 0, 0, 0x7fff0000]);
  });

  it("is written for x64 and arm64 only", () => {
    expect(insn(buildSeccompFilter("arm64"), 1)).toEqual([0x15, 1, 0, 0xc00000b7]);
    expect(() => buildSeccompFilter("ia32")).toThrow(
      expect.objectContaining({ code: "E_SANDBOX_UNAVAILABLE" }),
    );
  });
});

describe("program languages", () => {
  it("tells Python from JavaScript by the code and by the file name", () => {
    expect(detectProgramLanguage(resolveProgram("vault-cracker").source)).toBe("javascript");
    expect(detectProgramLanguage(VAULT_CRACKER_PY)).toBe("python");
    expect(detectProgramLanguage("class GridEnv(Base):\n    pass\n")).toBe("python");
    expect(detectProgramLanguage("// class X:\nclass Environment extends Base {}")).toBe(
      "javascript",
    );
    expect(programLanguageOfPath("pool/games/game_000001.PY")).toBe("python");
    expect(programLanguageOfPath("vault.js")).toBe("javascript");
  });
});

/** Starts the Python vault-cracker on a backend built with `options`. */
function startWith(options: PythonBackendOptions): Promise<ProgramEnv> {
  return ProgramEnv.create(createPythonBackend(options), VAULT_CRACKER_PY, { ...DEFAULT_LIMITS });
}

describe("the Python backend", () => {
  it("says what to install when bubblewrap or python3 is missing", async () => {
    await expect(startWith({ bwrap: "/nonexistent/bwrap" })).rejects.toMatchObject({
      code: "E_SANDBOX_UNAVAILABLE",
      message: expect.stringMatching(
        /^the Python sandbox cannot start: bubblewrap \(bwrap\) is not on PATH \(install bubblewrap/,
      ),
    });
    await expect(startWith({ python: "/nonexistent/python3" })).rejects.toMatchObject({
      code: "E_SANDBOX_UNAVAILABLE",
      message: expect.stringMatching(
        /^the Python sandbox cannot start: \/nonexistent\/python3 is not on PATH/,
      ),
    });
  });

  it("gives the same episode in a fresh process: random seeded per reset, string hashing fixed", async () => {
    const source = `class OrderEnv:
    def reset(self, seed=None):
        words = {"amber", "cobalt", "violet", "scarlet", "ochre", "teal", "umber", "sienna"}
        return ",".join(words) + " " + str(random.random()), {}
    def step(self, action):
        return str(random.randint(0, 10 ** 9)), 0.0, False, False, {}
`;
    const first = await loadProgram(source, { language: "python" });
    const second = await loadProgram(source, { language: "python" });
    try {
      const reset = await first.reset(11);
      const step = await first.step({ text: "x", answer: null, toolCalls: [] });
      expect(await second.reset(11)).toEqual(reset);
      expect(await second.step({ text: "x", answer: null, toolCalls: [] })).toEqual(step);
      expect((await second.reset(12)).observation).not.toBe(reset.observation);
      expect(await first.reset(11)).toEqual(reset);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("reads the same system randomness in a fresh process: unseeded Random, SystemRandom", async () => {
    // With the kernel's entropy the two processes answered 0.0343... and 0.2441... here.
    const source = `class DrawEnv:
    def reset(self, seed=None):
        return "%r %r" % (random.Random().random(), random.SystemRandom().random()), {}
    def step(self, action):
        return "x", 0.0, True, False, {}
`;
    const first = await loadProgram(source, { language: "python" });
    const second = await loadProgram(source, { language: "python" });
    try {
      expect(await second.reset(1)).toEqual(await first.reset(1));
    } finally {
      await first.close();
      await second.close();
    }
  });

  // With address-space randomisation, the first process below gave [15, 16, 17, 18, 19, 0, 3, ...]
  // and the next [3, 9, 5, 6, 7, 8, 10, ...] for the same reset.
  it.skipIf(!setarchWorks())(
    "orders a set of objects hashed by identity the same in a fresh process (setarch -R)",
    async () => {
      const source = `class Node:
    def __init__(self, i):
        self.i = i
class SetEnv:
    def reset(self, seed=None):
        nodes = set(Node(i) for i in range(20))
        return str([n.i for n in nodes]) + " " + hex(id(self)), {}
    def step(self, action):
        return "x", 0.0, True, False, {}
`;
      const observations: string[] = [];
      for (let k = 0; k < 3; k++) {
        const env = await loadProgram(source, { language: "python" });
        try {
          observations.push((await env.reset(1)).observation);
        } finally {
          await env.close();
        }
      }
      expect(observations[1]).toBe(observations[0]);
      expect(observations[2]).toBe(observations[0]);
    },
  );
});

describe("numpy in the Python sandbox (requirements-sandbox.txt, installed by scripts/setup-sandbox.sh)", () => {
  it("is offered as np without an import, as the reference injects it, seeded per reset; its values become JSON", async () => {
    const source = `class NumpyEnv:
    def reset(self, seed=None):
        self.target = int(np.random.randint(0, 1000))
        return "numbers " + str(np.arange(4).tolist()), {"mean": np.float64(1.5)}
    def step(self, action):
        import numpy
        won = action.strip() == str(self.target)
        return str(numpy.int64(self.target)), np.float64(1.0 if won else 0.0), np.bool_(won), False, {"draw": np.array([1, 2])}
`;
    const env = await loadProgram(source, { language: "python" });
    try {
      const first = await env.reset(4);
      expect(first).toEqual({ observation: "numbers [0, 1, 2, 3]", info: { mean: 1.5 } });
      const miss = await env.step({ text: "nope", answer: null, toolCalls: [] });
      expect(miss).toMatchObject({
        reward: 0,
        terminated: false,
        truncated: false,
        info: { draw: [1, 2] },
      });
      await env.reset(4);
      const win = await env.step({ text: miss.observation, answer: null, toolCalls: [] });
      expect(win).toMatchObject({ observation: miss.observation, reward: 1, terminated: true });
    } finally {
      await env.close();
    }
  });
});

describe("the site's packages and the host's files", () => {
  it.each([
    ["numpy", "", 'np.load("/etc/passwd", allow_pickle=False)'],
    ["networkx", "import networkx as nx\n\n", 'nx.read_edgelist("/etc/passwd").number_of_nodes()'],
  ])("gives %s no way to them", async (_, header, read) => {
    const env = await loadProgram(
      `${header}class LoadEnv:
    def reset(self, seed=None):
        return str(${read}), {}
    def step(self, action):
        return "", 0.0, True, False, {}
`,
      { language: "python" },
    );
    try {
      await expect(env.reset(0)).rejects.toMatchObject({
        code: "E_SANDBOX_THROW",
        message: expect.stringMatching(/FileNotFoundError/),
      });
    } finally {
      await env.close();
    }
  });
});

describe("networkx in the Python sandbox (requirements-sandbox.txt: RLVE's environments import it)", () => {
  it("imports networkx and its submodules for a program; the program still gets no os", async () => {
    const source = `import networkx as nx
from networkx.algorithms.shortest_paths.weighted import dijkstra_path_length

class GraphEnv:
    def reset(self, seed=None):
        g = nx.Graph()
        g.add_weighted_edges_from([(0, 1, 4), (1, 2, 1), (0, 2, 7), (2, 3, 2), (1, 3, 6)])
        self.g = g
        return str(nx.shortest_path(g, 0, 3, weight="weight")), {"length": dijkstra_path_length(g, 0, 3)}
    def step(self, action):
        import os
        return "", 0.0, True, False, {}
`;
    const env = await loadProgram(source, { language: "python" });
    try {
      expect(await env.reset(0)).toEqual({ observation: "[0, 1, 2, 3]", info: { length: 7 } });
      await expect(env.step({ text: "x", answer: null, toolCalls: [] })).rejects.toMatchObject({
        code: "E_SANDBOX_THROW",
        message: expect.stringMatching(/import of 'os' is not allowed in the sandbox/),
      });
    } finally {
      await env.close();
    }
  });
});
