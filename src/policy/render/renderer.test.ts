import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirsAfterEach } from "../../../test/cleanup.js";
import type { ToolSpec } from "../../env/index.js";
import {
  asciiIds,
  CHATML_TOOLS_TEMPLATE,
  TINY,
  tinyTokenizerConfig,
  tinyTokenizerJson,
  writeTinyModel,
} from "../../../test/fakes/tiny-model.js";
import { readModelFiles } from "./files.js";
import { ChatRenderer } from "./renderer.js";

const LOOKUP: ToolSpec = {
  type: "function",
  function: { name: "lookup", description: "look a key up", parameters: { type: "object" } },
};

const tempDir = tempDirsAfterEach("spade-tiny-");

describe("ChatRenderer", () => {
  it("renders with the model's template, tools and generation prompt, and tokenizes special tokens", () => {
    const r = ChatRenderer.fromDir(writeTinyModel(tempDir()));
    const text = r.render(
      [
        { role: "system", content: "S" },
        { role: "user", content: "U" },
      ],
      { tools: [LOOKUP], addGenerationPrompt: true },
    );
    expect(text).toBe(
      '<|im_start|>system\nS\n\n# Tools\n<tools>\n{"type": "function", "function": {"name": "lookup", "description": "look a key up", "parameters": {"type": "object"}}}\n</tools>\n' +
        'Call a tool as <tool_call>{"name": ..., "arguments": ...}</tool_call>.<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(
      r.renderTokens([{ role: "user", content: "U" }], { addGenerationPrompt: false }),
    ).toEqual([TINY.imStart, ...asciiIds("user\nU"), TINY.imEnd, 10]);
    expect(r.encode("<tool_call>ab")).toEqual([TINY.toolCallOpen, TINY.ab]);
    expect(r.decode([TINY.imStart, 97, 98, TINY.imEnd])).toBe("<|im_start|>ab<|im_end|>");
    // A reply that is only its end-of-turn token has no text (found on a real engine's tiny model).
    expect(r.decode([])).toBe("");
  });

  it("passes tool-call arguments as objects by default and as the model's text when asked", () => {
    const messages = [
      { role: "user" as const, content: "U" },
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          { id: "c", type: "function" as const, function: { name: "f", arguments: '{"x": 1.50}' } },
        ],
      },
    ];
    const dir = writeTinyModel(tempDir());
    expect(ChatRenderer.fromDir(dir).render(messages, { addGenerationPrompt: false })).toContain(
      '"arguments": {"x": 1.5}}',
    );
    const verbatim = ChatRenderer.fromDir(dir, { toolArguments: "string" }).render(messages, {
      addGenerationPrompt: false,
    });
    expect(verbatim).toContain('"arguments": "{\\"x\\": 1.50}"}');
  });

  it("finds the end-of-turn token by a probe render, and stops on every EOS id", () => {
    const dir = writeTinyModel(tempDir());
    expect(ChatRenderer.fromDir(dir)).toMatchObject({
      endOfTurnIds: [TINY.imEnd],
      stopIds: [TINY.imEnd],
      specialTokens: { eos_token: "<|im_end|>", pad_token: "<|endoftext|>" },
    });
    writeFileSync(
      join(dir, "generation_config.json"),
      JSON.stringify({ eos_token_id: [TINY.imEnd, TINY.endOfText] }),
    );
    expect(ChatRenderer.fromDir(dir).stopIds).toEqual([TINY.imEnd, TINY.endOfText]);
    expect(ChatRenderer.fromDir(dir, { endOfTurnTokens: ["<|endoftext|>"] }).endOfTurnIds).toEqual([
      TINY.endOfText,
    ]);
    expect(() => ChatRenderer.fromDir(dir, { endOfTurnTokens: ["<nope>"] })).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });

  it("passes special tokens and extra template variables to the template", () => {
    const dir = writeTinyModel(tempDir(), "{{ pad_token }}|{{ flavour }}|{{ messages | length }}");
    expect(
      ChatRenderer.fromDir(dir, { templateKwargs: { flavour: "mint" } }).render(
        [{ role: "user", content: "U" }],
        { addGenerationPrompt: true },
      ),
    ).toBe("<|endoftext|>|mint|1");
  });

  it("turns a template's raise_exception into E_POLICY_RENDER", () => {
    const dir = writeTinyModel(
      tempDir(),
      "{% if messages[0].role != 'system' %}{{ raise_exception('system first') }}{% endif %}ok",
    );
    const r = ChatRenderer.fromDir(dir, { endOfTurnTokens: ["<|im_end|>"] });
    expect(() => r.render([{ role: "user", content: "U" }], { addGenerationPrompt: true })).toThrow(
      expect.objectContaining({
        code: "E_POLICY_RENDER",
        message: expect.stringContaining("system first"),
      }),
    );
  });
});

describe("readModelFiles", () => {
  it("reads the template from chat_template.jinja before tokenizer_config.json, and takes an override first", () => {
    const dir = writeTinyModel(tempDir());
    expect(readModelFiles(dir).chatTemplates).toEqual({ default: CHATML_TOOLS_TEMPLATE });
    writeFileSync(join(dir, "chat_template.jinja"), "J");
    expect(readModelFiles(dir).chatTemplates).toEqual({ default: "J" });
    expect(readModelFiles(dir, "O").chatTemplates).toEqual({ default: "O" });
  });

  it("uses a model's tool_use template when tools are given", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tinyTokenizerJson()));
    const config = {
      ...tinyTokenizerConfig(),
      chat_template: [
        { name: "default", template: "plain" },
        { name: "tool_use", template: "tools:{{ tools | length }}" },
      ],
    };
    writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(config));
    const r = ChatRenderer.fromDir(dir, { endOfTurnTokens: ["<|im_end|>"] });
    expect(r.render([], { addGenerationPrompt: true })).toBe("plain");
    expect(r.render([], { tools: [LOOKUP], addGenerationPrompt: true })).toBe("tools:1");
  });

  it("fails with E_IO for a missing folder and E_CONFIG without a template or with broken JSON", () => {
    expect(() => readModelFiles(join(tempDir(), "missing"))).toThrow(
      expect.objectContaining({ code: "E_IO" }),
    );
    const dir = tempDir();
    writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tinyTokenizerJson()));
    const { chat_template: _unused, ...noTemplate } = tinyTokenizerConfig();
    writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(noTemplate));
    expect(() => readModelFiles(dir)).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: expect.stringContaining("no chat template"),
      }),
    );
    writeFileSync(join(dir, "tokenizer_config.json"), "{oops");
    expect(() => readModelFiles(dir)).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
  });
});
