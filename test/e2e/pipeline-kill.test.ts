/**
 * A pipelined run (`--max-off-policy 1`, in-process, with a training double) killed inside each
 * of its store transactions in turn and resumed writes exactly the rows of an uninterrupted run,
 * and the resumed run trains each step not committed once. It runs the whole loop about fifty
 * times over real sandboxes, hence here and not in the unit project (src/loop/pipeline.test.ts
 * has the pipeline's other checks).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { killInTransaction, RunStore } from "../../src/store/index.js";
import { fakeTrainer, pipelineRunner } from "../fakes/pipeline-run.js";
import { storeDump } from "./cli.js";
import { scenarioConfig, useScenarioServer } from "./selfplay-scenario.js";

const scenario = useScenarioServer("spade-pipeline-kill-");
const { run } = pipelineRunner(scenario.policy);

describe("--max-off-policy", () => {
  it("1: killed inside each of its transactions and resumed, the store is the uninterrupted run's", async () => {
    const config = scenarioConfig({ maxOffPolicy: 1, batchFit: "off" });
    const baseline = join(scenario.dir, "k1-baseline");
    // The uninterrupted run, counting its transactions.
    let transactions = 0;
    await run(baseline, config, {
      trainer: fakeTrainer().trainer,
      openStore: (d, mode) => {
        const store = RunStore.open(d, mode);
        const transaction = store.transaction.bind(store);
        store.transaction = <T>(fn: () => T): T => (transactions++, transaction(fn));
        return store;
      },
    });
    expect(transactions).toBeGreaterThan(12);
    const baselineDump = storeDump(baseline);

    for (let n = 1; n <= transactions; n++) {
      const out = join(scenario.dir, `k1-kill-${n}`);
      let dead = false;
      const killing = (d: string, mode: "create" | "resume") => {
        const store = killInTransaction(RunStore.open(d, mode), n, () => {
          dead = true;
          throw new Error(`killed in transaction ${n}`);
        });
        // After the kill nothing more lands, as after a SIGKILL.
        const transaction = store.transaction.bind(store);
        store.transaction = <T>(fn: () => T): T => {
          if (dead) throw new Error("the process is gone");
          return transaction(fn);
        };
        return store;
      };
      await expect(
        run(out, config, { trainer: fakeTrainer().trainer, openStore: killing }),
      ).rejects.toThrow(`killed in transaction ${n}`);
      const resumed = fakeTrainer();
      const store = RunStore.open(out, "read");
      const done = store.doneSteps();
      store.close();
      await run(out, config, { trainer: resumed.trainer }, true);
      expect({ n, dump: storeDump(out) }).toEqual({ n, dump: baselineDump });
      // The resumed run continues from the last committed weights and trains each step not committed, once.
      expect(resumed.log.filter((l) => l.startsWith("restore"))).toEqual(
        done > 0 ? [`restore ${done - 1}`] : [],
      );
      expect(resumed.log.filter((l) => l.startsWith("train")).map((l) => l.split(" ")[1])).toEqual(
        [0, 1, 2, 3].filter((s) => s >= done).map(String),
      );
    }
  }, 300_000);
});
