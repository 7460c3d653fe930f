/**
 * @module eval/suites/bbh/suite
 * BIG-Bench Hard (27 tasks, 6,511 examples) as single-turn items.
 * CANARY: these files ask never to appear in training corpora. They are evaluation-only; nothing
 * in SPADE may feed them to the designer, the grounding corpus or the trainer.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Action } from "../../../env/index.js";
import { SpadeError } from "../../../errors.js";
import { DATA_NEXT_STEP, field, readJson, takeLimit } from "../../data.js";
import { referenceHint } from "../single-turn-env.js";
import type { Grade, ItemSpec } from "../types.js";
import { bbhAnswersEqual, BBH_INSTRUCTIONS, BBH_TASK_KINDS } from "./grade.js";

/** The task names found in `<root>/bbh/bbh/`, sorted. */
export async function bbhTasks(root: string): Promise<string[]> {
  const dir = join(root, "bbh", "bbh");
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    throw new SpadeError("E_IO", `cannot list BBH tasks in ${dir}`, {
      nextStep: DATA_NEXT_STEP,
      cause: err,
    });
  }
  return names
    .filter((n) => n.endsWith(".json"))
    .map((n) => n.slice(0, -".json".length))
    .sort();
}

/** Items of one task, ids `bbh/<task>/<index>`. */
export async function loadBbhTask(root: string, task: string): Promise<ItemSpec[]> {
  const kind = BBH_TASK_KINDS[task];
  if (kind === undefined)
    throw new SpadeError("E_NOT_FOUND", `unknown BBH task "${task}"`, {
      nextStep: `one of ${Object.keys(BBH_TASK_KINDS).join(", ")}`,
    });
  const path = join(root, "bbh", "bbh", `${task}.json`);
  const data = (await readJson(path)) as { examples?: unknown };
  if (!Array.isArray(data.examples))
    throw new SpadeError("E_IO", `benchmark file ${path} has no "examples" array`);
  return data.examples.map((row, i) => {
    const input = field(row, "input", path);
    const target = field(row, "target", path);
    return {
      suite: "bbh",
      id: `bbh/${task}/${i}`,
      prompt: `${input}\n\n${BBH_INSTRUCTIONS[kind]}`,
      reference: target,
      oracleText:
        kind === "dyck" ? `<answer>${target}</answer>` : `The answer is \\boxed{${target}}.`,
      hint: referenceHint("The answer is ", target),
      grade: async (action: Action): Promise<Grade> => {
        if (action.answer === null)
          return { correct: false, info: { reason: "no_answer", task, reference: target } };
        return {
          correct: bbhAnswersEqual(kind, action.answer, target, input),
          info: { task, answer: action.answer, reference: target },
        };
      },
    } satisfies ItemSpec;
  });
}

/** All BBH items, task by task in name order (or only `tasks`), the first `limit` overall. */
export async function loadBbh(
  root: string,
  limit?: number,
  tasks?: readonly string[],
): Promise<ItemSpec[]> {
  const names = tasks ?? (await bbhTasks(root));
  const items: ItemSpec[] = [];
  for (const task of names) {
    if (limit !== undefined && items.length >= limit) break;
    items.push(...(await loadBbhTask(root, task)));
  }
  return takeLimit(items, limit);
}
