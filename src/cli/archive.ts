/**
 * @module cli/archive
 * `spade archive export RUN_DIR OUT`: a run's valid environments as an OpenEnv package folder or
 * as JSON Lines (see serve/archive.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import { isRunDir, jsonlText, openEnvPackage, runEnvironments, slug } from "../serve/index.js";
import { guardIo } from "../store/index.js";
import { runDirArg } from "./common.js";

/** The Python shim shipped with the package (python/spade_openenv/__init__.py). */
const SHIM_PATH = fileURLToPath(new URL("../../python/spade_openenv/__init__.py", import.meta.url));

const exportCommand = defineCommand({
  meta: {
    name: "export",
    description: "Export a run's valid environments as an OpenEnv package folder or JSON Lines",
  },
  args: {
    run: runDirArg,
    out: {
      type: "positional",
      description: "the package folder to create (openenv), or the .jsonl file to write (jsonl)",
      required: true,
    },
    format: { type: "string", description: "openenv | jsonl", default: "openenv" },
    "min-regret": { type: "string", description: "only environments with measured regret >= X" },
    skills: { type: "string", description: "only these skills (comma-separated)" },
  },
  async run({ args }) {
    const format = String(args.format);
    if (format !== "openenv" && format !== "jsonl")
      throw new SpadeError(
        "E_CONFIG",
        `--format must be openenv or jsonl (got ${JSON.stringify(format)})`,
      );
    const minRegretText = args["min-regret"];
    const minRegret = minRegretText === undefined ? null : Number(minRegretText);
    if (minRegret !== null && !Number.isFinite(minRegret))
      throw new SpadeError(
        "E_CONFIG",
        `--min-regret must be a number (got ${JSON.stringify(minRegretText)})`,
      );
    if (!isRunDir(args.run))
      throw new SpadeError("E_NOT_FOUND", `${args.run} is not a run folder (no run.sqlite)`, {
        nextStep: "give the folder a run was written to (--out of spade run)",
      });
    const skills = args.skills
      ? String(args.skills)
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
    const rows = runEnvironments(args.run, { minRegret, skills });
    if (rows.length === 0) {
      throw new SpadeError(
        "E_CONFIG",
        `no designed environment of ${args.run} passes the filters`,
        {
          nextStep:
            "loosen --min-regret / --skills, or check the run designed valid environments (spade runs show)",
        },
      );
    }
    const out = String(args.out);
    const onFull = "free space and export again";
    if (format === "jsonl") {
      try {
        guardIo(
          out,
          () => {
            mkdirSync(dirname(resolve(out)), { recursive: true });
            writeFileSync(out, jsonlText(rows));
          },
          onFull,
        );
      } catch (err) {
        rmSync(out, { force: true }); // a cut file would read as a smaller archive
        throw err;
      }
    } else {
      if (existsSync(out) && readdirSync(out).length > 0)
        throw new SpadeError("E_IO", `${out} exists and is not empty`, {
          nextStep: "give a new folder",
        });
      const files = openEnvPackage(rows, {
        packageName: slug(basename(resolve(out))),
        runDir: args.run,
        minRegret,
        shim: readFileSync(SHIM_PATH, "utf8"),
      });
      try {
        guardIo(
          out,
          () => {
            for (const [path, text] of files) {
              mkdirSync(dirname(join(out, path)), { recursive: true });
              writeFileSync(join(out, path), text);
            }
          },
          onFull,
        );
      } catch (err) {
        // Half a package would be refused as "not empty" by the next export, or served as less.
        for (const name of existsSync(out) ? readdirSync(out) : [])
          rmSync(join(out, name), { recursive: true, force: true });
        throw err;
      }
    }
    process.stdout.write(
      `exported ${rows.length} environment${rows.length === 1 ? "" : "s"} to ${out} (${format})\n`,
    );
  },
});

/** `spade archive ...` */
export const archiveCommand = defineCommand({
  meta: { name: "archive", description: "Share a run's environments" },
  subCommands: { export: exportCommand },
});
