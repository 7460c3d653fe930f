import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rejected } from "../../../test/assert.js";
import { fileTempDir } from "../../../test/cleanup.js";
import { isSpadeError } from "../../errors.js";
import { RG_MISSING, RG_VENV_READY } from "./testing/paths.js";
import { PROJECT_VENV_PYTHON, RgWorker, RgWorkerPool } from "./worker.js";
import { skipWithout } from "../../../test/missing.js";

const AB = { length: 25 };

describe.skipIf(skipWithout(RG_VENV_READY ? null : RG_MISSING))(
  "the reasoning-gym worker (real package in .venv)",
  () => {
    const worker = new RgWorker();
    afterAll(() => worker.close());

    it("reports the pinned package", async () => {
      expect((await worker.hello()).reasoningGym).toBe("0.1.25");
    });

    it("draws episode e's problem as the reference does (random.seed(e); random.choice of 500)", async () => {
      // random.seed(0/1/2) then choice over 500 items picks 432, 68, 489 (CPython's Mersenne Twister).
      const indices = [];
      for (const e of [0, 1, 2]) indices.push((await worker.generate("ab", AB, e)).index);
      expect(indices).toEqual([432, 68, 489]);
      const again = await worker.generate("ab", AB, 1);
      expect(again.question.endsWith("\n\nPut your final answer within \\boxed{}.")).toBe(true);
      expect(again.referenceSource).toBe("answer");
    });

    it("extracts the last <answer> (any case), else the last \\boxed{}, and grades with score_answer", async () => {
      const p = await worker.generate("ab", AB, 0);
      const ref = p.reference as string;
      expect(
        await worker.score("ab", AB, 0, `<answer>wrong</answer> then <ANSWER>  ${ref} </ANSWER>`),
      ).toEqual({ score: 1, extracted: ref });
      expect(await worker.score("ab", AB, 0, `so \\boxed{${ref}}`)).toEqual({
        score: 1,
        extracted: ref,
      });
      expect(await worker.score("ab", AB, 0, `<answer>${ref}</answer> \\boxed{nope}`)).toEqual({
        score: 1,
        extracted: ref,
      });
      expect(await worker.score("ab", AB, 0, "no answer at all")).toEqual({
        score: 0,
        extracted: null,
      });
    });

    it("builds reference answers where entries carry none (graph_color, rush_hour)", async () => {
      const g = await worker.generate(
        "graph_color",
        { max_num_vertices: 20, min_num_vertices: 10, num_colors: 4 },
        0,
      );
      expect(g.referenceSource).toBe("metadata.possible_answer");
      const r = await worker.generate("rush_hour", {}, 0);
      expect(r.referenceSource).toBe("breadth-first search on metadata.board_config");
      expect(
        (await worker.score("rush_hour", {}, 0, `<answer>${r.reference}</answer>`)).score,
      ).toBe(1);
    }, 60_000);

    it("stops a request that runs too long inside the worker with E_WORKER and keeps serving", async () => {
      const quick = new RgWorker({ requestSeconds: 1 });
      try {
        // knight_swap's generator needs about a minute for this problem.
        const err = await quick
          .generate(
            "knight_swap",
            {
              max_nodes: 8,
              max_pieces: 4,
              max_steps: 20,
              min_nodes: 6,
              min_pieces: 3,
              min_steps: 1,
            },
            1,
          )
          .catch((e: unknown) => e);
        expect(isSpadeError(err, "E_WORKER") && err.message).toMatch(/request ran over 1 s/);
        expect((await quick.generate("ab", AB, 0)).index).toBe(432);
      } finally {
        await quick.close();
      }
    }, 180_000);

    it("routes a dataset to one worker of a pool", { timeout: 180_000 }, async () => {
      const pool = new RgWorkerPool(3);
      try {
        expect(pool.workerFor("ab")).toBe(pool.workerFor("ab"));
        expect((await pool.generate("ab", AB, 2)).index).toBe(489);
      } finally {
        await pool.close();
      }
    });
  },
);

describe("worker failures", () => {
  const dir = fileTempDir("rg-worker-");
  const script = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  };
  const python = RG_VENV_READY ? PROJECT_VENV_PYTHON : "python3";

  it("a missing interpreter is E_DEPENDENCY_MISSING", async () => {
    const w = new RgWorker({ python: join(dir, "no-such-python") });
    const err = await w.hello().catch((e: unknown) => e);
    expect(isSpadeError(err, "E_DEPENDENCY_MISSING")).toBe(true);
    await w.close();
  });

  /** What `hello()` of a worker running the fake script `body` rejects with; the worker too. */
  const failedHello = async (name: string, body: string, timeoutMs?: number) => {
    const w = new RgWorker({ python, script: script(name, body), ...(timeoutMs && { timeoutMs }) });
    return { w, err: await rejected(w.hello()) };
  };

  it.each([
    [
      "a worker that cannot import reasoning_gym answers E_DEPENDENCY_MISSING",
      "noimport.py",
      'import sys, json\nfor line in sys.stdin:\n  r = json.loads(line)\n  print(json.dumps({"id": r["id"], "ok": False, "kind": "import", "error": "ModuleNotFoundError: No module named \'reasoning_gym\'"}), flush=True)\n',
      undefined,
      "E_DEPENDENCY_MISSING",
      /No module named 'reasoning_gym'/,
    ],
    [
      "a line that is not JSON is E_WORKER",
      "garbage.py",
      "import sys\nsys.stdin.readline()\nprint('hello there', flush=True)\nimport time; time.sleep(5)\n",
      undefined,
      "E_WORKER",
      /wrote a line that is not JSON \("hello there"\)/,
    ],
    [
      "no answer within the timeout kills the process with E_WORKER",
      "silent.py",
      "import time\ntime.sleep(30)\n",
      300,
      "E_WORKER",
      /did not answer within 300 ms/,
    ],
  ] as const)("%s", async (_title, name, body, timeoutMs, code, message) => {
    const { w, err } = await failedHello(name, body, timeoutMs);
    expect(isSpadeError(err, code) && err.message).toMatch(message);
    await w.close();
  });

  it("a crash fails the request with E_WORKER carrying stderr, and the next request starts a new process", async () => {
    const { w, err } = await failedHello(
      "crash.py",
      'import sys, json, os\nline = sys.stdin.readline()\nif not os.path.exists(sys.argv[0] + ".ran"):\n  open(sys.argv[0] + ".ran", "w").close()\n  sys.stderr.write("boom: out of luck\\n"); sys.exit(3)\nr = json.loads(line)\nprint(json.dumps({"id": r["id"], "ok": True, "python": "3", "reasoningGym": "x"}), flush=True)\n',
    );
    expect(isSpadeError(err, "E_WORKER") && err.message).toMatch(
      /exited \(status 3\): boom: out of luck/,
    );
    expect(await w.hello()).toEqual({ python: "3", reasoningGym: "x" });
    await w.close();
  });
});
