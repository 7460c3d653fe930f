/**
 * @module eval/suites/math/self-check
 * The grader's negative self-check: every reference, perturbed (+1 on a number, a flipped sign,
 * a dropped term, a changed letter) and boxed as a model would write it, must score 0.
 */
import { makeAction } from "../../../env/index.js";
import type { ItemSpec } from "../types.js";
import { perturb, PERTURBATIONS, type PerturbationKind } from "./perturb.js";

/** Results of one kind of perturbation over a suite. */
export interface PerturbationResult {
  kind: PerturbationKind;
  /** Items the perturbation applies to. */
  applicable: number;
  /** Of those, items whose perturbed answer scored 0 (all of them, for a sound grader). */
  scoredZero: number;
  /** Perturbed answers that were wrongly accepted. */
  accepted: Array<{ id: string; reference: string; perturbed: string }>;
}

/** The negative self-check of a math suite. */
export interface PerturbationReport {
  items: number;
  byKind: PerturbationResult[];
  /** Ids of items no perturbation applies to. */
  unperturbable: string[];
}

/** Perturbs every item's reference in every applicable way and grades it through the item. */
export async function perturbationCheck(items: readonly ItemSpec[]): Promise<PerturbationReport> {
  const byKind: PerturbationResult[] = PERTURBATIONS.map((kind) => ({
    kind,
    applicable: 0,
    scoredZero: 0,
    accepted: [],
  }));
  const unperturbable: string[] = [];
  for (const item of items) {
    let any = false;
    for (const result of byKind) {
      const perturbed = perturb(item.reference, result.kind);
      if (perturbed === null) continue;
      any = true;
      result.applicable++;
      const grade = await item.grade(makeAction(`\\boxed{${perturbed}}`));
      if (grade.correct)
        result.accepted.push({ id: item.id, reference: item.reference, perturbed });
      else result.scoredZero++;
    }
    if (!any) unperturbable.push(item.id);
  }
  return { items: items.length, byKind, unperturbable };
}
