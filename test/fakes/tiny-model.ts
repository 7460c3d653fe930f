/**
 * @module test/fakes/tiny-model
 * TEST FIXTURE. A tokenizer and chat templates that tests build themselves (nothing is
 * downloaded): a byte-level BPE whose ids are the byte values (one merge, "a"+"b" -> 256), ChatML
 * special tokens, a prefix-stable ChatML template with Hermes-style tools, and a Qwen3-like
 * template that is not prefix-stable.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Ids of the added tokens. Byte b has id b; the merge "ab" has id 256. */
export const TINY = {
  ab: 256,
  endOfText: 257,
  imStart: 258,
  imEnd: 259,
  toolCallOpen: 260,
  toolCallClose: 261,
  thinkOpen: 262,
  thinkClose: 263,
} as const;

/** GPT-2's byte-to-character table: every byte gets a printable character. */
function byteChars(): string[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const chars: string[] = new Array(256);
  let shifted = 0;
  for (let b = 0; b < 256; b++)
    chars[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + shifted++);
  return chars;
}

const ADDED: Array<[string, number, boolean]> = [
  ["<|endoftext|>", TINY.endOfText, true],
  ["<|im_start|>", TINY.imStart, true],
  ["<|im_end|>", TINY.imEnd, true],
  ["<tool_call>", TINY.toolCallOpen, false],
  ["</tool_call>", TINY.toolCallClose, false],
  ["<think>", TINY.thinkOpen, false],
  ["</think>", TINY.thinkClose, false],
];

/** The `tokenizer.json` of the tiny model (the format of Hugging Face `tokenizers`). */
export function tinyTokenizerJson(): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  byteChars().forEach((ch, b) => (vocab[ch] = b));
  vocab["ab"] = TINY.ab;
  const byteLevel = {
    type: "ByteLevel",
    add_prefix_space: false,
    trim_offsets: true,
    use_regex: true,
  };
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: ADDED.map(([content, id, special]) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special,
    })),
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: null,
    decoder: byteLevel,
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: [["a", "b"]],
    },
  };
}

/**
 * A prefix-stable ChatML template with tools in the system turn (the Hermes/Qwen2.5 layout):
 * consecutive tool results share one user turn, tool calls are rendered from `tool_calls`.
 */
export const CHATML_TOOLS_TEMPLATE = [
  "{%- if tools %}",
  "{{- '<|im_start|>system\\n' }}{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}",
  "{{- '# Tools\\n<tools>' }}{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}",
  '{{- \'\\n</tools>\\nCall a tool as <tool_call>{"name": ..., "arguments": ...}</tool_call>.<|im_end|>\\n\' }}',
  "{%- elif messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}",
  "{%- endif %}",
  "{%- for message in messages %}",
  "{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}",
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- elif message.role == 'assistant' %}",
  "{{- '<|im_start|>assistant\\n' + message.content }}",
  "{%- if message.tool_calls %}{%- for call in message.tool_calls %}",
  "{%- if call.function is defined %}{%- set call = call.function %}{%- endif %}",
  "{%- if message.content or not loop.first %}{{- '\\n' }}{%- endif %}",
  "{{- '<tool_call>\\n{\"name\": \"' + call.name + '\", \"arguments\": ' + (call.arguments | tojson) + '}\\n</tool_call>' }}",
  "{%- endfor %}{%- endif %}",
  "{{- '<|im_end|>\\n' }}",
  "{%- elif message.role == 'tool' %}",
  "{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}",
  "{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}",
  "{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}",
  "{%- endif %}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join("\n");

/**
 * A Qwen3-like template that is NOT prefix-stable: earlier assistant turns lose their
 * `<think>...</think>` reasoning, and the last assistant turn gets an empty think block.
 */
export const THINK_DROPPING_TEMPLATE = [
  "{%- for message in messages %}",
  "{%- if message.role == 'assistant' %}",
  "{%- set content = message.content %}",
  "{%- if '</think>' in content %}{%- set content = content.split('</think>')[-1].lstrip('\\n') %}{%- endif %}",
  "{%- if loop.last %}{{- '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' + content + '<|im_end|>\\n' }}",
  "{%- else %}{{- '<|im_start|>assistant\\n' + content + '<|im_end|>\\n' }}{%- endif %}",
  "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- endif %}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join("\n");

/** The `tokenizer_config.json` of the tiny model with `template` as its chat template. */
export function tinyTokenizerConfig(
  template: string = CHATML_TOOLS_TEMPLATE,
): Record<string, unknown> {
  const decoder: Record<string, unknown> = {};
  for (const [content, id, special] of ADDED)
    decoder[String(id)] = {
      content,
      lstrip: false,
      normalized: false,
      rstrip: false,
      single_word: false,
      special,
    };
  return {
    added_tokens_decoder: decoder,
    bos_token: null,
    eos_token: "<|im_end|>",
    pad_token: "<|endoftext|>",
    clean_up_tokenization_spaces: false,
    model_max_length: 4096,
    tokenizer_class: "Qwen2Tokenizer",
    chat_template: template,
  };
}

/** Writes `tokenizer.json` and `tokenizer_config.json` of the tiny model into `dir`; returns `dir`. */
export function writeTinyModel(dir: string, template: string = CHATML_TOOLS_TEMPLATE): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tinyTokenizerJson()));
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(tinyTokenizerConfig(template)));
  return dir;
}

/** Byte ids of ASCII `text` (the tiny tokenizer's encoding when `text` holds no "ab" and no added token). */
export function asciiIds(text: string): number[] {
  return Array.from(text, (ch) => ch.charCodeAt(0));
}
