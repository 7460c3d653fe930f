/**
 * @module policy/gguf-load
 * Getting a local model ready: the lazy import of node-llama-cpp (an optional dependency, so the
 * rest of SPADE never loads it), resolving a path or an `hf:` reference, and loading the file.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Llama, LlamaModel } from "node-llama-cpp";
import { describeError, SpadeError } from "../errors.js";

/** The node-llama-cpp module. */
export type LlamaModule = typeof import("node-llama-cpp");

/** The exact version package.json pins; the backend is tested against it. */
export const NODE_LLAMA_CPP_VERSION = "3.21.1";

/** How the module is imported. Tests pass a failing one to see the missing-dependency error. */
export type LlamaModuleLoader = () => Promise<LlamaModule>;

/** The default loader: a dynamic import, so nothing is loaded until a GGUF model is used. */
export const importNodeLlamaCpp: LlamaModuleLoader = () => import("node-llama-cpp");

/** Imports node-llama-cpp, or E_DEPENDENCY_MISSING saying how to install it. */
export async function loadLlamaModule(
  loader: LlamaModuleLoader = importNodeLlamaCpp,
): Promise<LlamaModule> {
  try {
    return await loader();
  } catch (err) {
    throw new SpadeError(
      "E_DEPENDENCY_MISSING",
      `node-llama-cpp could not be imported (${describeError(err)})`,
      {
        nextStep: `install it with \`npm install --save-optional --save-exact node-llama-cpp@${NODE_LLAMA_CPP_VERSION}\` (npm ci installs it unless --omit=optional was given)`,
        cause: err,
      },
    );
  }
}

/** Default threads: all cores but one (node-llama-cpp's own default was ~60x slower on 2 cores). */
export function defaultThreads(cores: number = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/** True for references node-llama-cpp downloads (`hf:user/repo/file.gguf`, `https://...`). */
export function isRemoteModel(model: string): boolean {
  return /^(hf:|hf\.co\/|huggingface:|https?:\/\/)/.test(model);
}

/** Where and how a remote model is fetched. */
export interface RemoteModelOptions {
  /** Cache and download folder. Default node-llama-cpp's (`~/.node-llama-cpp/models`). */
  modelsDir?: string;
  /** Hugging Face endpoint for `hf:` references. Default `https://huggingface.co/`. */
  hfEndpoint?: string;
  /**
   * Time allowed for the reachability check before a download starts. node-llama-cpp retries
   * unreachable hosts for minutes without honouring a signal, so a quick check comes first.
   * Default 10,000.
   */
  probeTimeoutMs?: number;
  /** `fetch` for the reachability check. Default the global one. */
  fetch?: typeof fetch;
  /** File name in `modelsDir` for a remote model (a file put there by hand is found under it). Default node-llama-cpp's naming. */
  fileName?: string;
  /** Download progress, in bytes (a download only). */
  onDownloadProgress?: (status: { downloadedBytes: number; totalBytes: number }) => void;
}

/** The https URL of the file an `hf:user/repo/file.gguf` reference names (what to fetch by hand); null for other forms. */
export function hfFileUrl(model: string, hfEndpoint = "https://huggingface.co/"): string | null {
  const m = /^(?:hf:\/\/|hf:|hf\.co\/|huggingface:)([^/]+)\/([^/:]+)\/(.+\.gguf)$/.exec(model);
  if (!m) return /^https?:\/\//.test(model) ? model : null;
  return `${hfEndpoint.replace(/\/?$/, "/")}${m[1]}/${m[2]}/resolve/main/${m[3]}`;
}

/** The next step of a model that could not be downloaded: the file to fetch and where to put it, when both are known. */
function fetchByHand(model: string, options: RemoteModelOptions): string {
  const url = hfFileUrl(model, options.hfEndpoint);
  if (url && options.modelsDir && options.fileName)
    return `download ${url} where the network allows and put it at ${join(options.modelsDir, options.fileName)} (or pass its path to --model-path)`;
  return "download the .gguf file where the network allows and pass its path";
}

/** The URL the reachability check asks: the repository's API entry for `hf:`, the file for URLs. */
export function probeUrl(model: string, hfEndpoint = "https://huggingface.co/"): string {
  if (/^https?:\/\//.test(model)) return model;
  const rest = model.replace(/^(hf:\/\/|hf:|hf\.co\/|huggingface:)/, "");
  const [user = "", repo = ""] = rest.split("/");
  return `${hfEndpoint.replace(/\/?$/, "/")}api/models/${user}/${repo.split(":")[0]}`;
}

/** Fails fast with E_MODEL_DOWNLOAD when the model's host cannot be reached or lacks the repository. */
async function probe(model: string, options: RemoteModelOptions): Promise<void> {
  const url = probeUrl(model, options.hfEndpoint);
  const doFetch = options.fetch ?? fetch;
  let status: number;
  try {
    status = (
      await doFetch(url, {
        method: "HEAD",
        signal: AbortSignal.timeout(options.probeTimeoutMs ?? 10_000),
      })
    ).status;
  } catch (err) {
    throw new SpadeError(
      "E_MODEL_DOWNLOAD",
      `"${model}" is not cached and ${url} cannot be reached (${describeError(err)})`,
      {
        nextStep: fetchByHand(model, options),
        cause: err,
      },
    );
  }
  if (status === 401 || status === 403 || status === 404) {
    throw new SpadeError(
      "E_MODEL_DOWNLOAD",
      `"${model}" is not available at ${url} (HTTP ${status})`,
      {
        nextStep: "check the repository and file name; gated models need a token (HF_TOKEN)",
      },
    );
  }
}

/**
 * The local file of `model`: a path that must exist (E_NOT_FOUND otherwise), or a remote
 * reference, taken from the cache when present and downloaded otherwise (E_MODEL_DOWNLOAD).
 */
export async function resolveModelPath(
  llama: LlamaModule,
  model: string,
  options: RemoteModelOptions = {},
): Promise<string> {
  if (!isRemoteModel(model)) {
    if (!existsSync(model) || !statSync(model).isFile()) {
      throw new SpadeError("E_NOT_FOUND", `no model file at ${model}`, {
        nextStep: "pass the path of a .gguf file, or an hf:user/repo/file.gguf reference",
      });
    }
    return model;
  }
  const common = {
    directory: options.modelsDir,
    fileName: options.fileName,
    cli: false,
    endpoints: options.hfEndpoint ? { huggingFace: options.hfEndpoint } : undefined,
    onProgress: options.onDownloadProgress
      ? (s: { totalSize: number; downloadedSize: number }) =>
          options.onDownloadProgress?.({
            downloadedBytes: s.downloadedSize,
            totalBytes: s.totalSize,
          })
      : undefined,
  };
  try {
    return await llama.resolveModelFile(model, { ...common, download: false });
  } catch {
    // Not in the cache: download below.
  }
  await probe(model, options);
  try {
    return await llama.resolveModelFile(model, common);
  } catch (err) {
    throw new SpadeError(
      "E_MODEL_DOWNLOAD",
      `"${model}" could not be downloaded (${describeError(err)})`,
      {
        nextStep: fetchByHand(model, options),
        cause: err,
      },
    );
  }
}

/** Which llama.cpp build runs the model: `false` is the CPU (the only binaries installed by default). */
export type GgufGpu = false | "auto" | "cuda" | "vulkan" | "metal";

/** The 4 bytes every GGUF file starts with. */
const GGUF_MAGIC = "GGUF";

/**
 * Checks a model file before llama.cpp sees it: E_MODEL_LOAD when it does not start with the GGUF
 * magic (a safetensors folder, a partial download, a text file), E_MODEL_TOO_LARGE when its size
 * is over `memoryBytes` (the weights alone would not fit; the context comes on top).
 */
export function checkGgufFile(path: string, memoryBytes?: number): void {
  const head = Buffer.alloc(4);
  let read = 0;
  try {
    const fd = openSync(path, "r");
    try {
      read = readSync(fd, head, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new SpadeError("E_IO", `cannot read the model file ${path} (${describeError(err)})`, {
      nextStep: "check the path and its permissions",
      cause: err,
    });
  }
  if (read < 4 || head.toString("latin1") !== GGUF_MAGIC) {
    throw new SpadeError(
      "E_MODEL_LOAD",
      `${path} is not a GGUF model file (it does not start with "GGUF")`,
      {
        nextStep:
          "pass a .gguf file (convert safetensors with llama.cpp's convert_hf_to_gguf.py, or use an hf:user/repo/file.gguf reference); a partial download must be fetched again",
      },
    );
  }
  const size = statSync(path).size;
  if (memoryBytes !== undefined && size > memoryBytes) {
    const gib = (n: number) => `${(n / 2 ** 30).toFixed(1)} GiB`;
    throw new SpadeError(
      "E_MODEL_TOO_LARGE",
      `${path} is ${gib(size)}, more than the ${gib(memoryBytes)} of memory this machine has`,
      {
        nextStep:
          "use a smaller or more quantized model (a Q4_K_M file is about 0.6 bytes per parameter)",
      },
    );
  }
}

/** Starts llama.cpp and loads the model file; E_DEPENDENCY_MISSING / E_MODEL_LOAD / E_MODEL_TOO_LARGE on failure. */
export async function loadModel(
  llamaModule: LlamaModule,
  path: string,
  settings: { gpu: GgufGpu; threads: number; verbose: boolean; memoryBytes?: number },
): Promise<{ llama: Llama; model: LlamaModel }> {
  checkGgufFile(path, settings.memoryBytes);
  let llama: Llama;
  try {
    llama = await llamaModule.getLlama({
      gpu: settings.gpu,
      // Never compile llama.cpp on the fly: that needs cmake, a compiler and the network.
      build: "never",
      maxThreads: settings.threads,
      logLevel: settings.verbose ? llamaModule.LlamaLogLevel.info : llamaModule.LlamaLogLevel.error,
      progressLogs: false,
    });
  } catch (err) {
    throw new SpadeError(
      "E_DEPENDENCY_MISSING",
      `node-llama-cpp has no usable llama.cpp binary for gpu=${String(settings.gpu)} (${describeError(err)})`,
      {
        nextStep:
          settings.gpu === false
            ? `reinstall node-llama-cpp@${NODE_LLAMA_CPP_VERSION} with its @node-llama-cpp/<platform> package`
            : "use the CPU (gpu: false), or remove the GPU package overrides from package.json and reinstall",
        cause: err,
      },
    );
  }
  try {
    return { llama, model: await llama.loadModel({ modelPath: path }) };
  } catch (err) {
    await llama.dispose();
    throw new SpadeError(
      "E_MODEL_LOAD",
      `llama.cpp could not load ${path} (${describeError(err)})`,
      {
        nextStep:
          "check that the file is a complete GGUF model of an architecture this llama.cpp supports",
        cause: err,
      },
    );
  }
}
