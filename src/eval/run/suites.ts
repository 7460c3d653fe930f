/**
 * @module eval/run/suites
 * The reasoning, math and code suites for the evaluation runner: each item opens its own
 * single-turn environment; BIG-Bench Hard is summarised per task, the others per suite.
 */
import type { EvalItem } from "../suites/index.js";
import type { EvalTask } from "./types.js";

/** A suite item as an evaluation task. */
export interface SuiteTask extends EvalTask {
  item: EvalItem;
}

/** The summary group of an item: `bbh/<task>` for BIG-Bench Hard (ids `bbh/<task>/<n>`), else the suite. */
export function suiteGroup(item: Pick<EvalItem, "suite" | "id">): string {
  if (item.suite !== "bbh") return item.suite;
  const parts = item.id.split("/");
  return parts.length >= 3 ? parts.slice(0, -1).join("/") : item.suite;
}

/** Items as tasks. */
export function suiteTasks(items: readonly EvalItem[]): SuiteTask[] {
  return items.map((item) => ({
    id: item.id,
    group: suiteGroup(item),
    item,
    open: () => item.createEnv(),
  }));
}
