/**
 * @module cli/data
 * `spade data list | fetch NAME|all | path`: the datasets SPADE reads, where it looks for them,
 * and downloading them from their public sources into the data folder (checksums recorded).
 */
import { defineCommand } from "citty";
import { SpadeError } from "../errors.js";
import { dataRoot } from "../eval/index.js";
import { DATASETS, findDataset, type Dataset, type DatasetFile } from "../eval/datasets.js";
import { datasetStatus, fetchDataset, readManifest } from "../eval/fetch.js";
import { dataArg } from "./common.js";
import { formatBytes, progressBar } from "./progress.js";

const dataArgs = { data: dataArg() } as const;

function root(flag: string | undefined): string {
  return dataRoot({ flag, env: process.env });
}

/** Replaces the origin of a URL (a mirror); the path stays. */
function withEndpoint(url: string, endpoint: string | undefined): string {
  if (!endpoint) return url;
  const u = new URL(url);
  return `${endpoint.replace(/\/+$/, "")}${u.pathname}${u.search}`;
}

function mirrored(dataset: Dataset, endpoint: string | undefined): Dataset {
  return {
    ...dataset,
    files: dataset.files.map((f) => ({ ...f, url: withEndpoint(f.url, endpoint) })),
    ...(dataset.listing
      ? { listing: { ...dataset.listing, url: withEndpoint(dataset.listing.url, endpoint) } }
      : {}),
  };
}

/** Whether `spade data fetch` can download the dataset (files of its own or a listing). */
const fetchable = (d: Dataset) => d.files.length > 0 || d.listing !== undefined;

const list = defineCommand({
  meta: {
    name: "list",
    description:
      "Every dataset SPADE reads: where it looks, present or missing, size, changed files",
  },
  args: { ...dataArgs, json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const dir = root(args.data);
    const manifest = await readManifest(dir);
    const rows = [];
    for (const d of DATASETS)
      rows.push({
        ...(await datasetStatus(dir, d, manifest)),
        description: d.description,
        source: d.source,
        fetchable: fetchable(d),
      });
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ dataDir: dir, datasets: rows }, null, 2)}\n`);
      return;
    }
    process.stdout.write(`data folder: ${dir}\n`);
    for (const r of rows) {
      const state = r.present
        ? `present, ${formatBytes(r.bytes)}${r.changed.length > 0 ? `, CHANGED: ${r.changed.join(", ")}` : ""}`
        : `missing${r.fetchable ? ` (spade data fetch ${r.name})` : ` (from ${r.source})`}`;
      process.stdout.write(
        `${r.name.padEnd(14)} ${state}\n${"".padEnd(15)}${r.dir} - ${r.description}\n`,
      );
    }
  },
});

/** Progress on a terminal: one line redrawn per file; elsewhere a line when a file starts. */
function progress(tty: boolean) {
  let current: string | null = null;
  return (file: DatasetFile, received: number, total: number | null) => {
    if (!tty) {
      if (current !== file.path)
        process.stderr.write(
          `fetching ${file.url} -> ${file.path}${total === null ? "" : ` (${formatBytes(total)})`}\n`,
        );
      current = file.path;
      return;
    }
    current = file.path;
    const amount = total ? `${formatBytes(received)}/${formatBytes(total)}` : formatBytes(received);
    process.stderr.write(`\r[${file.path}] ${progressBar(received, total)} ${amount}`);
  };
}

const fetchCmd = defineCommand({
  meta: {
    name: "fetch",
    description:
      "Download a dataset (or all) from its public source into the data folder; checksums are checked and recorded",
  },
  args: {
    name: {
      type: "positional",
      description: `a dataset name (${DATASETS.filter(fetchable)
        .map((d) => d.name)
        .join(", ")}) or all`,
      required: true,
    },
    ...dataArgs,
    endpoint: {
      type: "string",
      description:
        "fetch from this origin instead (a mirror serving the same paths, e.g. a Hugging Face mirror)",
    },
  },
  async run({ args }) {
    const dir = root(args.data);
    const chosen = args.name === "all" ? DATASETS.filter(fetchable) : [findDataset(args.name)];
    const tty = process.stderr.isTTY === true;
    const failures: string[] = [];
    for (const dataset of chosen) {
      try {
        const outcomes = await fetchDataset(dir, mirrored(dataset, args.endpoint), {
          fetch: globalThis.fetch,
          env: process.env,
          now: () => new Date(),
          onProgress: progress(tty),
        });
        if (tty) process.stderr.write("\n");
        for (const o of outcomes)
          process.stdout.write(
            `${o.status} ${o.path} ${formatBytes(o.bytes)} sha256 ${o.sha256}\n`,
          );
      } catch (err) {
        if (tty) process.stderr.write("\n");
        // With `all`, one dataset failing does not stop the others.
        if (args.name !== "all") throw err;
        failures.push(`${dataset.name}: ${(err as Error).message}`);
      }
    }
    if (failures.length > 0) {
      throw new SpadeError(
        "E_DATA_FETCH",
        `${failures.length} of ${chosen.length} datasets could not be fetched:\n${failures.join("\n")}`,
      );
    }
  },
});

const path = defineCommand({
  meta: { name: "path", description: "Print the data folder" },
  args: { ...dataArgs },
  run({ args }) {
    process.stdout.write(`${root(args.data)}\n`);
  },
});

/** `spade data ...` */
export const dataCommand = defineCommand({
  meta: {
    name: "data",
    description: "Benchmark datasets: list them, fetch them, print the data folder",
  },
  subCommands: { list, fetch: fetchCmd, path },
});
