/**
 * @module eval/datasets
 * Every dataset SPADE reads: where it lies below the data folder (the layout of the shared
 * benchmarks folder), where its files come from (pinned URLs, sha256 where known), and the
 * conversions into the rows the loaders read (AIME and GPQA-Diamond come as Parquet).
 */
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { SpadeError } from "../errors.js";
import { PyRandom } from "./python/index.js";
import { LCB_FILES } from "./suites/code/livecodebench.js";

/** One file of a dataset. */
export interface DatasetFile {
  /** Where it goes, relative to the data folder. */
  path: string;
  /** Where it comes from (HTTPS). */
  url: string;
  /** Its sha256 when known in advance (checked after download); else recorded on first download. */
  sha256?: string;
  /** Turns the downloaded bytes into the file the loader reads (the sha256 above is of the result). */
  convert?: (downloaded: Uint8Array) => Promise<Buffer>;
}

/** One dataset. */
export interface Dataset {
  name: string;
  /** What it is and which table column or suite reads it. */
  description: string;
  /** Its folder below the data folder. */
  dir: string;
  /** Files fetched by `spade data fetch`; empty when they must be put in place by hand. */
  files: DatasetFile[];
  /** A file whose presence means "present" (relative to the data folder). */
  marker: string;
  /** Where the data comes from, for people (and for the by-hand instructions). */
  source: string;
  /** The environment variable holding an access token (gated Hugging Face datasets). */
  tokenEnv?: string;
  /**
   * A `sha256sum` listing fetched first whose lines name further files (paths relative to the
   * listing, fetched from beside its URL, each checked against its line): a dataset of
   * thousands of files, such as the GPT-5.5 pool. They are checked, not recorded in the manifest.
   */
  listing?: DatasetFile;
}

const HF = "https://huggingface.co/datasets";
const GH = "https://raw.githubusercontent.com";

/** The revision of the GPT-5.5 pool the reference pins (`HF_DATASET_REVISION`). */
export const GPT55_POOL_REVISION = "e179a371bc7764dacf0bcee1f808100beb463137";
const GPT55_POOL = `${HF}/spare-rl/spare-gpt55-static-corpus/resolve/${GPT55_POOL_REVISION}`;

/** The reference's AIME instruction (cmd/eval/prepare_aime_datasets.py), appended to each problem. */
export const AIME_INSTRUCTION =
  "\nPlease reason step by step, and put your final answer within \\boxed{}.";

async function parquetRows(bytes: Uint8Array, what: string): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(
    bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength,
  ) as ArrayBuffer;
  try {
    return (await parquetReadObjects({
      file,
      metadata: parquetMetadata(file),
      compressors,
    })) as Record<string, unknown>[];
  } catch (err) {
    throw new SpadeError("E_IO", `the downloaded ${what} is not a readable Parquet file`, {
      nextStep:
        "run `spade data fetch` again; if it persists the source changed: see docs/eval-suites.md",
      cause: err,
    });
  }
}

function jsonl(rows: readonly unknown[]): Buffer {
  return Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n") + "\n", "utf8");
}

/** MathArena's AIME Parquet (`problem`, `answer`) as the reference's rows `{"prompt": [user], "label"}`. */
export async function aimeRowsFromParquet(bytes: Uint8Array): Promise<Buffer> {
  const rows = await parquetRows(bytes, "AIME file");
  return jsonl(
    rows.map((r, i) => {
      if (
        typeof r.problem !== "string" ||
        (typeof r.answer !== "string" &&
          typeof r.answer !== "number" &&
          typeof r.answer !== "bigint")
      ) {
        throw new SpadeError("E_IO", `AIME row ${i} lacks "problem" or "answer"`, {
          nextStep: "see docs/eval-suites.md for converting another AIME source by hand",
        });
      }
      return {
        prompt: [{ role: "user", content: r.problem + AIME_INSTRUCTION }],
        label: String(r.answer),
      };
    }),
  );
}

/**
 * GPQA-Diamond's rows (`Question`, `Correct Answer`, `Incorrect Answer 1..3`) as the reference
 * builds them (eval_offline/suites/gpqa_diamond.py): options shuffled by one CPython
 * `random.Random(42)` over the rows in order, ids `d<i>`, the letter of the correct option.
 */
export function gpqaRows(rows: readonly Record<string, unknown>[]): unknown[] {
  const rng = new PyRandom(42);
  return rows.map((r, i) => {
    const choices = [
      r["Correct Answer"],
      r["Incorrect Answer 1"],
      r["Incorrect Answer 2"],
      r["Incorrect Answer 3"],
    ];
    if (typeof r.Question !== "string" || !choices.every((c) => typeof c === "string")) {
      throw new SpadeError("E_IO", `GPQA row ${i} lacks "Question" or an answer column`, {
        nextStep: "see docs/eval-suites.md for the GPQA row format",
      });
    }
    const order = [0, 1, 2, 3];
    rng.shuffle(order);
    return {
      question_id: `d${i}`,
      question: r.Question,
      options: order.map((j) => choices[j] as string),
      answer: "ABCD"[order.indexOf(0)],
    };
  });
}

async function gpqaFromParquet(bytes: Uint8Array): Promise<Buffer> {
  return jsonl(gpqaRows(await parquetRows(bytes, "GPQA file")));
}

const BBH_FILES: ReadonlyArray<[string, string]> = [
  [
    "bbh/boolean_expressions.json",
    "ea6c754ec005e2d3f2d085d349a740f593b5764f32ea4638ffed4cfc0061b12a",
  ],
  ["bbh/causal_judgement.json", "6e8bca44dd402008ed41c07a3d0a1d5e7b03db7001a7e002fcdf4c60985ea081"],
  [
    "bbh/date_understanding.json",
    "0148d4ac5fca05b2f82373e5fef7208e15363b9c6079493034d77b3dab496bf5",
  ],
  [
    "bbh/disambiguation_qa.json",
    "cf06df9ebf911b883671cb1b35d3fbd1a1c306b19b9e9a012407e596c85fe8c6",
  ],
  ["bbh/dyck_languages.json", "3f9badedf15c2be1ce53d94fdf016299bb30ba231ef087ab9f51a7ed6d0bdc25"],
  ["bbh/formal_fallacies.json", "4c1adb664821157faade1d4153685403afcc02648f3c180a608a18f17f589629"],
  ["bbh/geometric_shapes.json", "07be68a124420caa2ebc0b2c858ad79fc55c5c8806170e496e1e17ebfb11f31c"],
  ["bbh/hyperbaton.json", "b6d7f55c75f5d02f2987a4f3123802dfa093872089a56a334144aae8a7264fdc"],
  [
    "bbh/logical_deduction_five_objects.json",
    "d2df31394b903b7f0e085d42a69572a092987856eac076799017d70ef266fa8f",
  ],
  [
    "bbh/logical_deduction_seven_objects.json",
    "2896c7e3482eea318dd37bcc370d24ec3cc91e8374c1784287b5dbd38a529e33",
  ],
  [
    "bbh/logical_deduction_three_objects.json",
    "e590fae72e3a6041fbd23bd8ff6b74baf44ca563f6ba40a041c55e7b867c1681",
  ],
  [
    "bbh/movie_recommendation.json",
    "a8b53a87ee21a865b7248e694f388a9b8f7cf6b839b11d44796a2dd3fc088983",
  ],
  [
    "bbh/multistep_arithmetic_two.json",
    "c9d5a6433c9b78256422a15c78463949c8bec8d85607aa28b52d7234ad4a8595",
  ],
  ["bbh/navigate.json", "b7944dfd3c81da5c4815bd75b00d6fa3c64140823498e78ed496f4c3d36f7f0d"],
  ["bbh/object_counting.json", "8acef14dbbdd40d2326ef7755750b6b5fe919fef06276af1bab3f1c297f022ff"],
  [
    "bbh/penguins_in_a_table.json",
    "bb87ee449698eee51215e025a453b1bcb2f5e6589c2063b2c79e68b8f0655228",
  ],
  [
    "bbh/reasoning_about_colored_objects.json",
    "0a8850cf95166020fce7a78244026ceedd7ea839302471512b4f8744e85a6a49",
  ],
  ["bbh/ruin_names.json", "b6f723aef2bafdd4c7bfc3c7e0329c7e8a8279391a609969c8ed76c9319f5f7f"],
  [
    "bbh/salient_translation_error_detection.json",
    "becf3eb8dd53c821a555ecd5c1334ecd93eb25f980e63be963c518e7138de5da",
  ],
  ["bbh/snarks.json", "54a0661fe2de06167645a4965e6bcf963c4ba307e76262a7c750998b0e3d0d0e"],
  [
    "bbh/sports_understanding.json",
    "63ca262858f6176864515cd8cf53cdaa40839ebecc155b726d77930855d167bf",
  ],
  [
    "bbh/temporal_sequences.json",
    "92a1189faaa84aacc4c405aaa13f13f48c2992eb884772eedb622505252baef5",
  ],
  [
    "bbh/tracking_shuffled_objects_five_objects.json",
    "2063a46a4fb484236ed4310523606543a3e1dd4a4dc34eda65d407910ece25a5",
  ],
  [
    "bbh/tracking_shuffled_objects_seven_objects.json",
    "b59fd05b850c37cf57cb514ae1e6975c00b1638ade2291722056b2af3c54084d",
  ],
  [
    "bbh/tracking_shuffled_objects_three_objects.json",
    "546cc7bf10c6a01a6a4c17ae28a4966485f21f29fd5d111f37858ec78e354f6b",
  ],
  ["bbh/web_of_lies.json", "3e60323f8514a107fdb4edf35f8832a9171c5a09c0eaa47823559de905e8ab8b"],
  ["bbh/word_sorting.json", "2a6132d2c99f00d0d2eb1113ac6b4a918bd969d863c48749210d969713db8d43"],
];

/** Every dataset SPADE reads, by name. */
export const DATASETS: readonly Dataset[] = [
  {
    name: "aime-2025",
    description: "AIME 2025 (30 problems): the AIME-25 column of the games table",
    dir: "aime-2025",
    files: [
      {
        path: "aime-2025/aime-2025.jsonl",
        url: `${HF}/MathArena/aime_2025/resolve/main/data/train-00000-of-00001.parquet`,
        convert: aimeRowsFromParquet,
      },
    ],
    marker: "aime-2025/aime-2025.jsonl",
    source: "Hugging Face MathArena/aime_2025 (Parquet), converted to the reference's rows",
  },
  {
    name: "aime-2026",
    description: "AIME 2026 (30 problems): the AIME-26 column of the games table",
    dir: "aime-2026",
    files: [
      {
        path: "aime-2026/aime-2026.jsonl",
        url: `${HF}/MathArena/aime_2026/resolve/main/data/train-00000-of-00001.parquet`,
        convert: aimeRowsFromParquet,
      },
    ],
    marker: "aime-2026/aime-2026.jsonl",
    source: "Hugging Face MathArena/aime_2026 (Parquet), converted to the reference's rows",
  },
  {
    name: "gpqa-diamond",
    description: "GPQA-Diamond (198 questions): the GPQA-Diamond column of the games table",
    dir: "gpqa-diamond",
    files: [
      {
        path: "gpqa-diamond/gpqa_diamond.jsonl",
        url: `${HF}/Idavidrein/gpqa/resolve/refs%2Fconvert%2Fparquet/gpqa_diamond/train/0000.parquet`,
        convert: gpqaFromParquet,
      },
    ],
    marker: "gpqa-diamond/gpqa_diamond.jsonl",
    source:
      "Hugging Face Idavidrein/gpqa, config gpqa_diamond (gated: accept its terms on the dataset page, then set HF_TOKEN)",
    tokenEnv: "HF_TOKEN",
  },
  {
    name: "livecodebench",
    description:
      "LiveCodeBench code generation, release_v6 (1,055 problems; test6.jsonl alone is v6): the LiveCodeBench column",
    dir: "livecodebench",
    files: LCB_FILES.map((f) => ({
      path: `livecodebench/${f}`,
      url: `${HF}/livecodebench/code_generation_lite/resolve/main/${f}`,
    })),
    marker: "livecodebench/test6.jsonl",
    source:
      "Hugging Face livecodebench/code_generation_lite (test.jsonl ... test6.jsonl, as they are)",
  },
  {
    name: "gsm8k",
    description: "GSM8K test split (1,319 problems): `spade eval gsm8k`",
    dir: "gsm8k",
    files: [
      {
        path: "gsm8k/test.jsonl",
        url: `${GH}/openai/grade-school-math/3101c7d5072418e28b9008a6636bde82a006892c/grade_school_math/data/test.jsonl`,
        sha256: "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14",
      },
    ],
    marker: "gsm8k/test.jsonl",
    source: "openai/grade-school-math at 3101c7d",
  },
  {
    name: "math500",
    description: "MATH-500 (500 problems): `spade eval math500`",
    dir: "math500",
    files: [
      {
        path: "math500/test.jsonl",
        url: `${GH}/hkust-nlp/simpleRL-reason/cf1c7858bfc145a27aa733e75d930d34f0d318a6/examples/simplelr_math_eval/data/math500/test.jsonl`,
        sha256: "35dc41080a3680858b27fa7e0533d2d547825316fc5dafe5d316f4ccc5a06132",
      },
    ],
    marker: "math500/test.jsonl",
    source:
      "hkust-nlp/simpleRL-reason at cf1c785 (the same bytes as openai/prm800k's MATH-500 split)",
  },
  {
    name: "humaneval",
    description: "HumanEval (164 problems): `spade eval humaneval`",
    dir: "humaneval",
    files: [
      {
        path: "humaneval/HumanEval.jsonl.gz",
        url: `${GH}/openai/human-eval/6d43fb980f9fee3c892a914eda09951f772ad10d/data/HumanEval.jsonl.gz`,
        sha256: "b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef",
      },
    ],
    marker: "humaneval/HumanEval.jsonl.gz",
    source: "openai/human-eval at 6d43fb9",
  },
  {
    name: "mbpp",
    description: "MBPP sanitized (427 problems, test split 257): `spade eval mbpp`",
    dir: "mbpp",
    files: [
      {
        path: "mbpp/sanitized-mbpp.json",
        url: `${GH}/google-research/google-research/30adf0ec5f35f9609c2f1d896005e184195d9146/mbpp/sanitized-mbpp.json`,
        sha256: "ca95deaa9a01ef0a6f439f88bcf0dd3db3563d22f22aad6cae04ebb9a8d8c8e9",
      },
    ],
    marker: "mbpp/sanitized-mbpp.json",
    source: "google-research/google-research at 30adf0e, mbpp/sanitized-mbpp.json",
  },
  {
    name: "bbh",
    description: "BIG-Bench Hard (27 tasks, 6,511 examples): `spade eval bbh`",
    dir: "bbh",
    files: BBH_FILES.map(([path, sha256]) => ({
      path: `bbh/${path}`,
      url: `${GH}/suzgunmirac/BIG-Bench-Hard/9ee07bd481feebf959a6b59d61ea57bdcf30964d/${path}`,
      sha256,
    })),
    marker: "bbh/bbh/boolean_expressions.json",
    source: "suzgunmirac/BIG-Bench-Hard at 9ee07bd",
  },
  {
    name: "bfcl",
    description:
      "BFCL v4 multi-turn data, ground truth and golden replays: `spade eval bfcl`, the BFCL-v4 column",
    dir: "bfcl",
    files: [],
    marker: "bfcl/bfcl_eval/data/BFCL_v4_multi_turn_base.json",
    source:
      "ShishirPatil/gorilla at 6ea5797, berkeley-function-call-leaderboard/bfcl_eval/data (= PyPI bfcl-eval 2026.3.23); the golden replays come with the shared benchmarks folder",
  },
  {
    name: "acebench",
    description: "ACEBench (agent, normal, special; English and Chinese): the ACEBench columns",
    dir: "acebench",
    files: [],
    marker: "acebench/data_all",
    source:
      "ACEBench/ACEBench at e6db74b, data_all/ (and fork-fix/, derived/ from the shared benchmarks folder)",
  },
  {
    name: "gpt55-pool",
    description:
      "the reference's GPT-5.5 fixed-environment pool (7,872 validated games, six skills): `spade run --designer off --env-pool DATA/gpt55-pool`",
    dir: "gpt55-pool",
    // The files and revision of the reference's cmd/games/_download_gpt55_pool.sh; the games are
    // those its checksums.sha256 lists. The manifests come last: manifest.jsonl present = complete.
    listing: { path: "gpt55-pool/checksums.sha256", url: `${GPT55_POOL}/checksums.sha256` },
    files: ["validation_manifest.jsonl", "manifest.jsonl"].map((f) => ({
      path: `gpt55-pool/${f}`,
      url: `${GPT55_POOL}/${f}`,
    })),
    marker: "gpt55-pool/manifest.jsonl",
    source: `Hugging Face spare-rl/spare-gpt55-static-corpus at ${GPT55_POOL_REVISION.slice(0, 7)} (games/, manifests, checksums.sha256)`,
    tokenEnv: "HF_TOKEN",
  },
  {
    name: "reasoning-gym",
    description: "reasoning-gym hard split configuration (100 datasets): the RG columns",
    dir: "reasoning-gym",
    files: [],
    marker: "reasoning-gym/hard.json",
    source:
      "transcribed from spade-rl/spade at 9b2b813 (see the shared benchmarks folder's reasoning-gym/README.md)",
  },
];

/** The dataset named `name` (E_NOT_FOUND lists the names). */
export function findDataset(name: string): Dataset {
  const found = DATASETS.find((d) => d.name === name);
  if (!found)
    throw new SpadeError("E_NOT_FOUND", `unknown dataset "${name}"`, {
      nextStep: `one of ${DATASETS.map((d) => d.name).join(", ")}, or all`,
    });
  return found;
}
