/**
 * @module policy/render/files
 * Reading a model's tokenizer files from a local folder: `tokenizer.json`, `tokenizer_config.json`
 * (special tokens, the Jinja `chat_template`), and where present `chat_template.jinja`,
 * `chat_template.json` and `generation_config.json` (extra end-of-sequence ids).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { orIoError, SpadeError } from "../../errors.js";

/** What a renderer is built from; tests may build it in memory. */
export interface ModelFiles {
  /** The parsed `tokenizer.json`. */
  tokenizer: Record<string, unknown>;
  /** The parsed `tokenizer_config.json`. */
  config: Record<string, unknown>;
  /** Chat templates by name (`default`, `tool_use`...); a single template is named `default`. */
  chatTemplates: Record<string, string>;
  /** End-of-sequence ids from `generation_config.json` (empty when absent). */
  generationEosIds: number[];
}

function readJson(path: string, what: string): Record<string, unknown> {
  const text = orIoError(
    () => readFileSync(path, "utf8"),
    `cannot read ${what} at ${path}`,
    "point --model-path at the folder that holds the model's tokenizer files",
  );
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new Error("not a JSON object");
    return value as Record<string, unknown>;
  } catch (cause) {
    throw new SpadeError("E_CONFIG", `${path} is not a JSON object`, {
      cause,
      nextStep: `use the model's original ${what}`,
    });
  }
}

/**
 * Chat templates from a `chat_template` value: a string, or the list form
 * `[{name, template}]` that some models ship (e.g. a separate `tool_use` template).
 */
export function templatesFrom(value: unknown): Record<string, string> {
  if (typeof value === "string") return { default: value };
  const templates: Record<string, string> = {};
  if (Array.isArray(value)) {
    for (const entry of value) {
      const { name, template } = (entry ?? {}) as { name?: unknown; template?: unknown };
      if (typeof name === "string" && typeof template === "string") templates[name] = template;
    }
  }
  return templates;
}

/** Integer ids of an `eos_token_id` value (a number or a list of numbers). */
function idList(value: unknown): number[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter((v): v is number => Number.isInteger(v));
}

/**
 * Reads the tokenizer files in `dir`. The chat template comes from, in order: `chatTemplate`
 * (the text of a template that replaces the model's), `chat_template.jinja`,
 * `tokenizer_config.json`'s `chat_template`, `chat_template.json`. Throws E_IO for a missing
 * file, E_CONFIG for unusable content or when no template is found.
 */
export function readModelFiles(dir: string, chatTemplate?: string): ModelFiles {
  const tokenizer = readJson(join(dir, "tokenizer.json"), "tokenizer.json");
  const config = readJson(join(dir, "tokenizer_config.json"), "tokenizer_config.json");
  let chatTemplates: Record<string, string> = {};
  const jinjaPath = join(dir, "chat_template.jinja");
  const jsonPath = join(dir, "chat_template.json");
  if (chatTemplate !== undefined) chatTemplates = { default: chatTemplate };
  else if (existsSync(jinjaPath)) chatTemplates = { default: readFileSync(jinjaPath, "utf8") };
  else if (config.chat_template !== undefined) chatTemplates = templatesFrom(config.chat_template);
  else if (existsSync(jsonPath))
    chatTemplates = templatesFrom(readJson(jsonPath, "chat_template.json").chat_template);
  if (Object.keys(chatTemplates).length === 0) {
    throw new SpadeError("E_CONFIG", `no chat template found in ${dir}`, {
      nextStep:
        "use an instruction-tuned model's files (tokenizer_config.json with chat_template, or chat_template.jinja), or pass a template file",
    });
  }
  const generationPath = join(dir, "generation_config.json");
  const generationEosIds = existsSync(generationPath)
    ? idList(readJson(generationPath, "generation_config.json").eos_token_id)
    : [];
  return { tokenizer, config, chatTemplates, generationEosIds };
}
