/**
 * @module policy/render/renderer
 * A model's own chat rendering in TypeScript: its Jinja chat template (rendered with
 * `@huggingface/jinja`, as transformers does: messages, `tools`, `add_generation_prompt`,
 * special tokens) and its tokenizer (`@huggingface/tokenizers`), plus the token ids that end a
 * turn and stop sampling.
 */
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import type { ToolSpec } from "../../env/index.js";
import { SpadeError } from "../../errors.js";
import type { ChatMessage } from "../types.js";
import { readModelFiles, type ModelFiles } from "./files.js";

/** Settings of a renderer. */
export interface RendererOptions {
  /**
   * Tokens that end an assistant turn (e.g. `["<|im_end|>"]`). Default: found by rendering a
   * probe conversation (the first added token after the assistant's text), else the EOS token.
   */
  endOfTurnTokens?: string[];
  /** Extra template variables (e.g. `{ enable_thinking: false }` for Qwen3). Default none. */
  templateKwargs?: Record<string, unknown>;
  /**
   * How tool-call arguments reach the template: `object` (parsed, the transformers convention;
   * templates re-serialize them with `tojson`) or `string` (the model's JSON text verbatim, for
   * templates that print strings as they are). Default `object`.
   */
  toolArguments?: "object" | "string";
}

/** What `render` needs besides the messages. */
export interface RenderOptions {
  /** Function tools shown to the model; omitted from the template when empty. */
  tools?: readonly ToolSpec[];
  /** End with the opening of an assistant turn. */
  addGenerationPrompt: boolean;
}

/** The string value of a special-token entry (`"<s>"` or `{content: "<s>", ...}`). */
function tokenText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { content?: unknown }).content === "string"
  )
    return (value as { content: string }).content;
  return null;
}

/** A message as templates expect it: content never null, tool-call arguments as configured. */
function templateMessage(
  message: ChatMessage,
  toolArguments: "object" | "string",
): Record<string, unknown> {
  if (message.role !== "assistant") return { ...message };
  const toolCalls = (message.tool_calls ?? []).map((call) => {
    let args: unknown = call.function.arguments;
    if (toolArguments === "object") {
      try {
        args = JSON.parse(call.function.arguments);
      } catch {
        // Unparseable arguments stay text: the template shows what the model wrote.
      }
    }
    return {
      id: call.id,
      type: "function",
      function: { name: call.function.name, arguments: args },
    };
  });
  return {
    role: "assistant",
    content: message.content ?? "",
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

/** Renders conversations with a model's chat template and tokenizes them with its tokenizer. */
export class ChatRenderer {
  /** Special-token strings from `tokenizer_config.json` (`bos_token`, `eos_token`...), passed to the template. */
  readonly specialTokens: Record<string, string>;
  /** Ids that end an assistant turn. */
  readonly endOfTurnIds: number[];
  /** Ids that stop sampling: end of turn plus every end-of-sequence id. */
  readonly stopIds: number[];
  private readonly tokenizer: Tokenizer;
  private readonly templates: Map<string, Template>;
  private readonly options: RendererOptions;

  /** Builds a renderer from loaded files; E_CONFIG when the template does not parse or a token is unknown. */
  constructor(files: ModelFiles, options: RendererOptions = {}) {
    this.options = options;
    try {
      this.tokenizer = new Tokenizer(files.tokenizer, files.config);
    } catch (cause) {
      throw new SpadeError(
        "E_CONFIG",
        `the tokenizer files could not be loaded: ${(cause as Error).message}`,
        { cause, nextStep: "use the model's original tokenizer.json and tokenizer_config.json" },
      );
    }
    this.templates = new Map();
    for (const [name, source] of Object.entries(files.chatTemplates)) {
      try {
        this.templates.set(name, new Template(source));
      } catch (cause) {
        throw new SpadeError(
          "E_CONFIG",
          `the chat template "${name}" does not parse: ${(cause as Error).message}`,
          { cause, nextStep: "check the template's Jinja syntax" },
        );
      }
    }
    this.specialTokens = {};
    for (const [key, value] of Object.entries(files.config)) {
      const text = key.endsWith("_token") ? tokenText(value) : null;
      if (text !== null) this.specialTokens[key] = text;
    }
    const eos = this.specialTokens.eos_token;
    const eosIds = [...(eos !== undefined ? [this.idOf(eos)] : []), ...files.generationEosIds];
    this.endOfTurnIds = options.endOfTurnTokens
      ? options.endOfTurnTokens.map((t) => this.idOf(t))
      : (this.probeEndOfTurn() ?? eosIds.slice(0, 1));
    if (this.endOfTurnIds.length === 0) {
      throw new SpadeError("E_CONFIG", "no end-of-turn token could be determined", {
        nextStep: "name it with endOfTurnTokens (e.g. <|im_end|>)",
      });
    }
    this.stopIds = [...new Set([...this.endOfTurnIds, ...eosIds])];
  }

  /** Reads the tokenizer files in `dir` (see `readModelFiles`) and builds a renderer. */
  static fromDir(
    dir: string,
    options: RendererOptions & { chatTemplate?: string } = {},
  ): ChatRenderer {
    return new ChatRenderer(readModelFiles(dir, options.chatTemplate), options);
  }

  /** The id of a token string; E_CONFIG when the vocabulary lacks it. */
  idOf(token: string): number {
    const id = this.tokenizer.token_to_id(token);
    if (id === undefined)
      throw new SpadeError("E_CONFIG", `the tokenizer has no token "${token}"`, {
        nextStep: "check the token's spelling against tokenizer.json",
      });
    return id;
  }

  /** True when `id` is an added token (special or not), e.g. `<|im_end|>` or `<tool_call>`. */
  isAddedToken(id: number): boolean {
    return this.tokenizer.get_added_tokens_decoder().has(id);
  }

  /**
   * The chat template's text for `messages`. The `tool_use` template is used when tools are
   * given and the model has one, else `default` (transformers' rule). E_POLICY_RENDER when the
   * template raises (e.g. a role it does not support).
   */
  render(messages: readonly ChatMessage[], options: RenderOptions): string {
    const tools = options.tools && options.tools.length > 0 ? options.tools : undefined;
    const template =
      (tools ? this.templates.get("tool_use") : undefined) ??
      this.templates.get("default") ??
      [...this.templates.values()][0];
    if (!template) throw new SpadeError("E_CONFIG", "the renderer has no chat template");
    try {
      return template.render({
        ...this.specialTokens,
        ...this.options.templateKwargs,
        messages: messages.map((m) => templateMessage(m, this.options.toolArguments ?? "object")),
        tools,
        add_generation_prompt: options.addGenerationPrompt,
      });
    } catch (cause) {
      throw new SpadeError(
        "E_POLICY_RENDER",
        `the chat template failed: ${(cause as Error).message}`,
        { cause, nextStep: "check that the template accepts these roles and tool calls" },
      );
    }
  }

  /** Token ids of `text`, special tokens recognised, nothing added (the way chat templates are tokenized). */
  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** Text of `ids`, special tokens kept, spaces untouched. */
  decode(ids: readonly number[]): string {
    // No ids is no text: a model may end its turn at once, and the tokenizer library rejects [].
    if (ids.length === 0) return "";
    return this.tokenizer.decode([...ids], {
      skip_special_tokens: false,
      clean_up_tokenization_spaces: false,
    });
  }

  /** Tokens of the rendered conversation. */
  renderTokens(messages: readonly ChatMessage[], options: RenderOptions): number[] {
    return this.encode(this.render(messages, options));
  }

  /** The first added token after the assistant's text in a probe conversation, or null. */
  private probeEndOfTurn(): number[] | null {
    const marker = "SPADE_PROBE_ANSWER";
    try {
      const text = this.render(
        [
          { role: "user", content: "probe" },
          { role: "assistant", content: marker },
        ],
        { addGenerationPrompt: false },
      );
      const at = text.indexOf(marker);
      if (at < 0) return null;
      const first = this.encode(text.slice(at + marker.length))[0];
      return first !== undefined && this.isAddedToken(first) ? [first] : null;
    } catch {
      // A template that rejects the probe (e.g. one that demands a system turn): fall back to EOS.
      return null;
    }
  }
}
