/**
 * @module eval/suites/math
 * Public face of the math suites (GSM8K, MATH-500): answer cleaning, shape parsing, symbolic
 * equivalence, perturbations for the negative self-check, and the item loaders.
 */
export { cleanAnswer, textKey, type CleanAnswer } from "./normalize.js";
export { parseAnswer, parseLatexAnswer, splitTopLevel, type AnswerNode } from "./structure.js";
export { expressionsEqual, expressionsProportional, RELATIVE_TOLERANCE } from "./symbolic.js";
export { mathAnswersEqual, nodesEqual } from "./equivalence.js";
export { perturb, topLevelTerms, PERTURBATIONS, type PerturbationKind } from "./perturb.js";
export {
  perturbationCheck,
  type PerturbationReport,
  type PerturbationResult,
} from "./self-check.js";
export { gradeMath, gsm8kReference, loadGsm8k, loadMath500, MATH_INSTRUCTION } from "./suites.js";
