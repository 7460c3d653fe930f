/**
 * @module serve/catalog
 * What `spade serve` offers: library environments, program files and the valid environments of
 * runs, each resolved once to its source and meta under a unique URL-safe name.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EnvMeta } from "../env/index.js";
import { resolveProgram } from "../envs/index.js";
import { SpadeError } from "../errors.js";
import { loadProgram, type SandboxBackendName } from "../sandbox/index.js";
import { RunStore, STORE_FILE, type EnvironmentRow } from "../store/index.js";

/** One environment a server offers. */
export interface CatalogEntry {
  /** URL path segment: the environment is served under `/<name>/`. */
  name: string;
  /** The program's source. */
  source: string;
  /** Its meta, read when it was loaded. */
  meta: EnvMeta;
  /** Where it came from: `library`, `file` or `run`. */
  origin: "library" | "file" | "run";
  /** The file, library path or run folder it was read from. */
  from: string;
  /** Run statistics for environments of runs (regret, win rate), else null. */
  stats: {
    regret: number | null;
    winRate: number | null;
    plays: number;
    createdStep: number;
    envId: string;
  } | null;
}

/** Filters applied to the environments of runs. */
export interface RunFilter {
  /** Keep environments whose measured regret is at least this (unmeasured ones are dropped). */
  minRegret?: number | null;
  /** Keep environments of these skills (case-insensitive); empty or absent keeps all. */
  skills?: readonly string[];
}

/** A program not yet loaded: name wanted, source, where it came from. */
export interface CatalogSource {
  name: string;
  source: string;
  origin: CatalogEntry["origin"];
  from: string;
  stats: CatalogEntry["stats"];
}

/** True when `dir` is a run folder (holds the run's store). */
export function isRunDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && existsSync(join(dir, STORE_FILE));
  } catch {
    return false;
  }
}

/** The designed environments of a run that pass `filter`, best regret first. */
export function runEnvironments(dir: string, filter: RunFilter = {}): EnvironmentRow[] {
  const store = RunStore.open(dir, "read");
  try {
    const skills = (filter.skills ?? []).map((s) => s.toLowerCase());
    return store
      .environments()
      .filter((e) => e.source === "designer")
      .filter((e) => skills.length === 0 || skills.includes(e.skill.toLowerCase()))
      .filter(
        (e) =>
          filter.minRegret == null ||
          (e.stats.regret !== null && e.stats.regret >= filter.minRegret),
      )
      .sort(
        (a, b) =>
          (b.stats.regret ?? -Infinity) - (a.stats.regret ?? -Infinity) || a.id.localeCompare(b.id),
      );
  } finally {
    store.close();
  }
}

/**
 * Resolves command-line references (a library name, a program file, or a run folder) to
 * sources. Throws E_NOT_FOUND / E_IO as `resolveProgram` does, and E_CONFIG when nothing is
 * left to serve.
 */
export function catalogSources(refs: readonly string[], filter: RunFilter = {}): CatalogSource[] {
  const out: CatalogSource[] = [];
  for (const ref of refs) {
    if (isRunDir(ref)) {
      for (const e of runEnvironments(ref, filter)) {
        out.push({
          name: e.name,
          source: e.code,
          origin: "run",
          from: ref,
          stats: {
            regret: e.stats.regret,
            winRate: e.stats.winRate,
            plays: e.stats.plays,
            createdStep: e.createdStep,
            envId: e.id,
          },
        });
      }
      continue;
    }
    const program = resolveProgram(ref);
    out.push({
      name: program.name ?? "",
      source: program.source,
      origin: program.name ? "library" : "file",
      from: program.path,
      stats: null,
    });
  }
  if (out.length === 0) {
    throw new SpadeError("E_CONFIG", "nothing to serve: no environment is left after the filters", {
      nextStep:
        "name library environments, program files or run folders, or loosen --min-regret / --skills",
    });
  }
  return out;
}

/** A URL-safe lowercase-kebab form of `name` (`env` when nothing is left). */
export function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return s || "env";
}

/** Root paths of the server that no environment may take. */
const RESERVED_NAMES = ["health"];

/** Names made unique in order: the second `maze` becomes `maze-2`, and so on. */
export function uniqueNames(names: readonly string[]): string[] {
  const used = new Set<string>(RESERVED_NAMES);
  return names.map((raw) => {
    const base = slug(raw);
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}-${i}`;
    used.add(name);
    return name;
  });
}

/**
 * Loads every source once in the sandbox to read its meta, and names it (the library name, else
 * `meta.name`, made unique). Rejects with the sandbox's coded error for a program that does not load.
 */
export async function loadCatalog(
  sources: readonly CatalogSource[],
  backend: SandboxBackendName = "isolated-vm",
): Promise<CatalogEntry[]> {
  const metas: EnvMeta[] = [];
  for (const s of sources) {
    const env = await loadProgram(s.source, { backend });
    metas.push(env.meta);
    await env.close();
  }
  const names = uniqueNames(sources.map((s, i) => s.name || metas[i]!.name));
  return sources.map((s, i) => ({
    name: names[i]!,
    source: s.source,
    meta: metas[i]!,
    origin: s.origin,
    from: s.from,
    stats: s.stats,
  }));
}
