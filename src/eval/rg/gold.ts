/**
 * @module eval/rg/gold
 * The reasoning-gym graders' self-check: for every dataset of the hard split, each episode's
 * reference answer, written as a model would answer and played through `RgEnv`, must win; and
 * perturbed answers (empty, another problem's answer, one character changed) must not.
 */
import { describeError } from "../../errors.js";
import { oracleTurn } from "../../env/oracle.js";
import { mapLimit } from "../../policy/index.js";
import { RgEnv, RG_WIN_SCORE, rgOracleText } from "./env.js";
import { RG_SETTINGS, type RgDataset } from "./split.js";
import type { RgService } from "./worker.js";

/** The perturbations tried on each reference answer. */
export const RG_PERTURBATIONS = ["empty", "other-problem", "changed-character"] as const;

/** One perturbation kind. */
export type RgPerturbation = (typeof RG_PERTURBATIONS)[number];

/** The gold check of one dataset. */
export interface RgGoldDataset {
  dataset: string;
  category: RgDataset["category"];
  episodes: number;
  /** Episodes whose reference answer won. */
  correct: number;
  /** Where the reference answers came from (`answer`, or a builder from the entry's metadata). */
  referenceSources: string[];
  /** Episodes that did not win, with the reason. */
  failures: Array<{ episode: number; reason: string }>;
  /** Per perturbation: answers tried and how many scored below 1. */
  perturbations: Array<{
    kind: RgPerturbation;
    applicable: number;
    rejected: number;
    accepted: Array<{ episode: number; answer: string }>;
  }>;
}

/** The gold check of the split. */
export interface RgGoldReport {
  suite: "rg";
  /** Datasets checked. */
  items: number;
  /** Datasets whose every episode's reference won. */
  correct: number;
  /** Episodes checked and won, over all datasets. */
  problems: number;
  problemsCorrect: number;
  datasets: RgGoldDataset[];
  durationMs: number;
}

/** A different answer with one character changed: the last digit moved up by one, else the last ASCII letter moved to the next one (z to a, same case), else an added "0". */
export function changeOneCharacter(answer: string): string {
  const chars = [...answer];
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i] as string;
    if (c >= "0" && c <= "9") {
      chars[i] = String((Number(c) + 1) % 10);
      return chars.join("");
    }
  }
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i] as string;
    if (/[a-z]/i.test(c)) {
      const base = c <= "Z" ? 65 : 97;
      chars[i] = String.fromCharCode(base + ((c.charCodeAt(0) - base + 1) % 26));
      return chars.join("");
    }
  }
  return `${answer}0`;
}

/** Options of `rgGoldCheck`. */
export interface RgGoldOptions {
  /** Episodes per dataset. Default the reference's 8. */
  episodes?: number;
  /** Datasets checked at once. Default 4. */
  concurrency?: number;
  /** Also score perturbed answers. Default true. */
  perturb?: boolean;
  /** Called after each dataset. */
  onDataset?: (result: RgGoldDataset, done: number, total: number) => void;
}

async function checkDataset(
  dataset: RgDataset,
  service: RgService,
  options: Required<Pick<RgGoldOptions, "episodes" | "perturb">>,
): Promise<RgGoldDataset> {
  const result: RgGoldDataset = {
    dataset: dataset.name,
    category: dataset.category,
    episodes: options.episodes,
    correct: 0,
    referenceSources: [],
    failures: [],
    perturbations: RG_PERTURBATIONS.map((kind) => ({
      kind,
      applicable: 0,
      rejected: 0,
      accepted: [],
    })),
  };
  const references: Array<string | null> = [];
  for (let episode = 0; episode < options.episodes; episode++) {
    // Generate once (the worker caches it for the episode below); a failed generation is a failed episode.
    const problem = await service
      .generate(dataset.name, dataset.config, episode)
      .catch((err: unknown) => {
        result.failures.push({ episode, reason: describeError(err) });
        return null;
      });
    references.push(problem?.reference ?? null);
    if (!problem) continue;
    if (!result.referenceSources.includes(problem.referenceSource))
      result.referenceSources.push(problem.referenceSource);
    const env = new RgEnv(dataset, service);
    try {
      await env.reset(episode);
      const step = (await oracleTurn(env)).result;
      if (step.reward === 1) result.correct++;
      else
        result.failures.push({
          episode,
          reason: `reference scored ${String(step.info.score)} (extracted ${JSON.stringify(step.info.extracted)})`,
        });
    } catch (err) {
      result.failures.push({ episode, reason: describeError(err) });
    } finally {
      await env.close();
    }
  }
  if (!options.perturb) return result;
  for (let episode = 0; episode < options.episodes; episode++) {
    const reference = references[episode];
    if (reference === null || reference === undefined) continue;
    const other = references[(episode + 1) % options.episodes];
    const candidates: Record<RgPerturbation, string | null> = {
      empty: "",
      "other-problem":
        other !== null && other !== undefined && other.trim() !== reference.trim() ? other : null,
      "changed-character": changeOneCharacter(reference),
    };
    for (const slot of result.perturbations) {
      const answer = candidates[slot.kind];
      if (answer === null) continue;
      slot.applicable++;
      const graded = await service
        .score(dataset.name, dataset.config, episode, rgOracleText(answer))
        .catch(() => null);
      if (graded === null || graded.score < RG_WIN_SCORE) slot.rejected++;
      else slot.accepted.push({ episode, answer: answer.slice(0, 200) });
    }
  }
  return result;
}

/** Runs the gold check over `datasets` with the worker (or pool) `service`. */
export async function rgGoldCheck(
  datasets: readonly RgDataset[],
  service: RgService,
  options: RgGoldOptions = {},
): Promise<RgGoldReport> {
  const started = Date.now();
  const settings = {
    episodes: options.episodes ?? RG_SETTINGS.episodes,
    perturb: options.perturb ?? true,
  };
  let done = 0;
  const results = await mapLimit(datasets, options.concurrency ?? 4, async (dataset) => {
    const r = await checkDataset(dataset, service, settings);
    options.onDataset?.(r, ++done, datasets.length);
    return r;
  });
  return {
    suite: "rg",
    items: results.length,
    correct: results.filter((r) => r.correct === r.episodes).length,
    problems: results.reduce((n, r) => n + r.episodes, 0),
    problemsCorrect: results.reduce((n, r) => n + r.correct, 0),
    datasets: results,
    durationMs: Date.now() - started,
  };
}
