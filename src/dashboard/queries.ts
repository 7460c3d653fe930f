/**
 * @module dashboard/queries
 * What the dashboard's pages show, read from a run's store with one read-only connection per
 * request: the run's summary, the archive, design attempts and episodes (the charts' series are
 * in series.ts). Large columns (transcripts, prompts) are read only by the pages that show them.
 */
import type Database from "better-sqlite3";
import { basename } from "node:path";
import { storedLanguage, type Json, type StoredLanguage } from "../env/index.js";
import type { CheckReport } from "../env/index.js";
import {
  DESIGN_OUTCOME_COLUMNS,
  designOutcomeFromRow,
  EPISODE_SCORE_COLUMNS,
  episodeScoreFromRow,
  type DesignOutcome,
  type EnvStats,
  type EpisodeScore,
} from "../store/index.js";
import { withRunDb, writerAlive } from "./store-read.js";

type Row = Record<string, unknown>;
export const num = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? v : null;
const parse = <T>(text: unknown): T => JSON.parse(String(text)) as T;
export const parseOrNull = <T>(text: unknown): T | null =>
  text === null || text === undefined ? null : parse<T>(text);

/** A run's state: `running` while its writer is alive, `done` when every step is, else `stopped`. */
export type RunStatus = "running" | "done" | "stopped";

/** One row of the Runs page. */
export interface RunSummary {
  name: string;
  status: RunStatus;
  stepsDone: number;
  /** Steps the run was configured for (null when its config is unreadable). */
  stepsPlanned: number | null;
  /** A few config values that tell runs apart (designer, model, mode, seed, ...). */
  config: Record<string, Json>;
  environments: number;
  episodes: number;
}

const SUMMARY_KEYS = [
  "designer",
  "mode",
  "model",
  "baseModel",
  "policy",
  "seed",
  "designsPerStep",
  "plays",
  "hintedPlays",
  "hints",
  "designerReward",
  "train",
] as const;

/** The Runs-page summary of the run in `dir`. */
export function runSummary(dir: string): RunSummary {
  return withRunDb(dir, (db) => {
    const configRow = db.prepare("SELECT value FROM meta WHERE key = 'config'").get() as
      | Row
      | undefined;
    const config = (configRow ? parse<Record<string, Json>>(configRow.value) : {}) ?? {};
    const count = (sql: string) => Number((db.prepare(sql).get() as Row).n);
    const stepsDone = count("SELECT COUNT(*) AS n FROM steps WHERE status = 'done'");
    const stepsPlanned = num(config.steps);
    const status: RunStatus = writerAlive(dir)
      ? "running"
      : stepsPlanned !== null && stepsDone >= stepsPlanned
        ? "done"
        : "stopped";
    const shown: Record<string, Json> = {};
    for (const key of SUMMARY_KEYS)
      if (config[key] !== undefined && config[key] !== null) shown[key] = config[key] as Json;
    return {
      name: basename(dir),
      status,
      stepsDone,
      stepsPlanned,
      config: shown,
      environments: count("SELECT COUNT(*) AS n FROM environments"),
      episodes: count("SELECT COUNT(*) AS n FROM episodes"),
    };
  });
}

/** One environment of the archive, with the design attempt that produced it (none for library ones). */
export interface ArchiveEntry {
  id: string;
  name: string;
  skill: string;
  description: string;
  source: "designer" | "library";
  createdStep: number;
  stats: EnvStats;
  /** The program's language (`javascript`, `python`, `openenv`). */
  language: StoredLanguage;
}

/** An environments row as an Archive entry. */
function archiveEntry(r: Row): ArchiveEntry {
  return {
    id: String(r.id),
    name: String(r.name),
    skill: String(r.skill),
    description: String(r.description),
    source: r.source as ArchiveEntry["source"],
    createdStep: Number(r.created_step),
    stats: parse<EnvStats>(r.stats),
    // A store not yet upgraded (opened only to read) has no column: told from the code.
    language: (r.language ? String(r.language) : storedLanguage(String(r.code))) as StoredLanguage,
  };
}

/** Filters of the archive page. */
export interface ArchiveFilter {
  skill?: string;
  /** `valid`: environments only; `invalid`: design slots that produced none; both when unset. */
  validity?: "valid" | "invalid";
  /** Keep environments whose regret is at least this (environments without a regret are dropped). */
  regretMin?: number;
  regretMax?: number;
}

/** A design slot whose attempts all failed: what its last attempt failed on. */
export interface LostSlot {
  step: number;
  slot: number;
  skill: string;
  attempts: number;
  /** The last attempt's outcome and failing check codes. */
  outcome: string;
  codes: string[];
}

/** Design slots of the run in `dir` that produced no environment, filtered by skill. */
export function lostSlots(dir: string, filter: { skill?: string } = {}): LostSlot[] {
  const bySlot = new Map<string, AttemptEntry[]>();
  for (const a of designAttempts(dir, { skill: filter.skill }))
    bySlot.set(`${a.step}/${a.slot}`, [...(bySlot.get(`${a.step}/${a.slot}`) ?? []), a]);
  return [...bySlot.values()]
    .filter((attempts) => attempts.every((a) => a.envId === null))
    .map((attempts) => {
      const last = attempts[attempts.length - 1] as AttemptEntry;
      return {
        step: last.step,
        slot: last.slot,
        skill: last.skill,
        attempts: attempts.length,
        outcome: last.outcome,
        codes: last.failures.map((f) => f.code),
      };
    });
}

/** Every environment of the run in `dir` matching `filter`, oldest first. */
export function archive(dir: string, filter: ArchiveFilter = {}): ArchiveEntry[] {
  if (filter.validity === "invalid") return [];
  return withRunDb(dir, (db) => {
    const columns = db.prepare("PRAGMA table_info(environments)").all() as Array<{ name: string }>;
    const language = columns.some((c) => c.name === "language") ? "language" : "code";
    const rows = db
      .prepare(
        `SELECT id, name, skill, description, source, created_step, stats, ${language} FROM environments ORDER BY created_step, source, slot, id`,
      )
      .all() as Row[];
    return rows
      .map(archiveEntry)
      .filter((e) => filter.skill === undefined || e.skill === filter.skill)
      .filter(
        (e) =>
          filter.regretMin === undefined ||
          (e.stats.regret !== null && e.stats.regret >= filter.regretMin),
      )
      .filter(
        (e) =>
          filter.regretMax === undefined ||
          (e.stats.regret !== null && e.stats.regret <= filter.regretMax),
      );
  });
}

/** One environment with its program and what its designer was shown. */
export interface EnvironmentDetail extends ArchiveEntry {
  code: string;
  hint: string | null;
  docId: string | null;
  /** The accepted attempt's validation report, prompt and memory references (designed environments only). */
  report: CheckReport | null;
  prompt: Json | null;
  memoryRefs: Json | null;
}

/** The environment `id` of the run in `dir`, or null when it has none by that id. */
export function environmentDetail(dir: string, id: string): EnvironmentDetail | null {
  return withRunDb(dir, (db) => {
    const r = db.prepare("SELECT * FROM environments WHERE id = ?").get(id) as Row | undefined;
    if (r === undefined) return null;
    const d = db
      .prepare(
        "SELECT report, prompt, memory_refs FROM designs WHERE env_id = ? ORDER BY step, slot, seq LIMIT 1",
      )
      .get(id) as Row | undefined;
    return {
      ...archiveEntry(r),
      code: String(r.code),
      hint: r.hint === null ? null : String(r.hint),
      docId: r.doc_id === null ? null : String(r.doc_id),
      report: d ? parseOrNull<CheckReport>(d.report) : null,
      prompt: d ? parseOrNull<Json>(d.prompt) : null,
      memoryRefs: d ? parseOrNull<Json>(d.memory_refs) : null,
    };
  });
}

/** One design attempt as the Design attempts page lists it: its outcome, failures and answer. */
export interface AttemptEntry extends DesignOutcome {
  /** Failed validator checks as `CODE: message`, in check order (empty for attempts not validated or valid). */
  failures: Array<{ code: string; message: string }>;
  program: string | null;
  completion: string;
}

/** Filters of the design attempts page. */
export interface AttemptFilter {
  outcome?: string;
  skill?: string;
  code?: string;
}

function failuresOf(report: CheckReport | null): AttemptEntry["failures"] {
  if (!report) return [];
  return report.checks
    .filter((c) => !c.ok)
    .map((c) => ({ code: String(c.code), message: String(c.message ?? "") }));
}

/** Every design attempt of the run in `dir` matching `filter`, in key order. */
export function designAttempts(dir: string, filter: AttemptFilter = {}): AttemptEntry[] {
  return withRunDb(dir, (db) =>
    (
      db
        .prepare(
          `SELECT ${DESIGN_OUTCOME_COLUMNS}, report, program, completion FROM designs ORDER BY step, slot, seq`,
        )
        .all() as Row[]
    )
      .map((r) => ({
        ...designOutcomeFromRow(r),
        failures: failuresOf(parseOrNull<CheckReport>(r.report)),
        program: r.program === null ? null : String(r.program),
        completion: String(r.completion),
      }))
      .filter((a) => filter.outcome === undefined || a.outcome === filter.outcome)
      .filter((a) => filter.skill === undefined || a.skill === filter.skill)
      .filter((a) => filter.code === undefined || a.failures.some((f) => f.code === filter.code)),
  );
}

/** Lost designs per step and reason: validator codes, or the outcome when no check ran (`no-program`, `duplicate`, ...). */
export function failureCodesByStep(attempts: readonly AttemptEntry[]): {
  steps: number[];
  codes: string[];
  countsByCode: number[][];
} {
  const steps = [...new Set(attempts.map((a) => a.step))].sort((a, b) => a - b);
  const reasons = (a: AttemptEntry) =>
    a.outcome === "valid" ? [] : a.failures.length ? a.failures.map((f) => f.code) : [a.outcome];
  const codes = [...new Set(attempts.flatMap(reasons))].sort();
  const countsByCode = codes.map((code) =>
    steps.map((s) => attempts.filter((a) => a.step === s && reasons(a).includes(code)).length),
  );
  return { steps, codes, countsByCode };
}

/** One episode as the Episodes list shows it: its score and its environment's name. */
export interface EpisodeEntry extends EpisodeScore {
  envName: string | null;
}

/** An episodes row (joined with its environment's name, `name`) as a list entry. */
function episodeEntry(r: Row, name: unknown): EpisodeEntry {
  return { ...episodeScoreFromRow(r), envName: name === null ? null : String(name) };
}

/** Filters and paging of the Episodes list. */
export interface EpisodeFilter {
  step?: number;
  envId?: string;
  limit: number;
  offset: number;
}

/** A page of the run's episodes in key order, and how many match in all. */
export function episodeList(
  dir: string,
  filter: EpisodeFilter,
): { total: number; episodes: EpisodeEntry[] } {
  return withRunDb(dir, (db) => {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.step !== undefined) {
      where.push("ep.step = ?");
      args.push(filter.step);
    }
    if (filter.envId !== undefined) {
      where.push("ep.env_id = ?");
      args.push(filter.envId);
    }
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const total = Number(
      (db.prepare(`SELECT COUNT(*) AS n FROM episodes ep ${clause}`).get(...args) as Row).n,
    );
    const rows = db
      .prepare(
        // The score's columns are unique to episodes, so they need no table prefix in the join.
        `SELECT ${EPISODE_SCORE_COLUMNS}, env.name FROM episodes ep
         LEFT JOIN environments env ON env.id = ep.env_id ${clause} ORDER BY ep.step, ep.env_id, ep.idx LIMIT ? OFFSET ?`,
      )
      .all(...args, filter.limit, filter.offset) as Row[];
    return {
      total,
      episodes: rows.map((r) => episodeEntry(r, r.name)),
    };
  });
}

/** One stored episode with its transcript. */
export interface EpisodeDetail extends EpisodeEntry {
  rewards: number[];
  transcript: Json;
}

/** The unhinted and hinted plays of `envId` at `step` with `seed` (either may be missing). */
export function episodePair(
  dir: string,
  step: number,
  envId: string,
  seed: number,
): { unhinted: EpisodeDetail | null; hinted: EpisodeDetail | null } {
  return withRunDb(dir, (db) => {
    const rows = db
      .prepare(
        `SELECT ep.*, env.name AS env_name FROM episodes ep LEFT JOIN environments env ON env.id = ep.env_id
         WHERE ep.step = ? AND ep.env_id = ? AND ep.seed = ? ORDER BY ep.idx`,
      )
      .all(step, envId, seed) as Row[];
    const detail = (r: Row | undefined): EpisodeDetail | null =>
      r === undefined
        ? null
        : {
            ...episodeEntry(r, r.env_name),
            rewards: parse<number[]>(r.rewards),
            transcript: parse<Json>(r.transcript),
          };
    return {
      unhinted: detail(rows.find((r) => r.hinted === 0)),
      hinted: detail(rows.find((r) => r.hinted === 1)),
    };
  });
}

/** The program of environment `id` (for the Play page), or null. */
export function environmentProgram(
  dir: string,
  id: string,
): { name: string; code: string; hint: string | null } | null {
  return withRunDb(dir, (db: Database.Database) => {
    const r = db.prepare("SELECT name, code, hint FROM environments WHERE id = ?").get(id) as
      | Row
      | undefined;
    return r === undefined
      ? null
      : {
          name: String(r.name),
          code: String(r.code),
          hint: r.hint === null ? null : String(r.hint),
        };
  });
}
