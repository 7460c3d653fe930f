import { describe, expect, it } from "vitest";
import { timed } from "../../test/assert.js";
import { extractProgram, stripThinking } from "./extract.js";

const ENV = "class Environment {\n  static meta = {};\n}";
const fence = (info: string, body: string) => `\`\`\`${info}\n${body}\n\`\`\``;

/** The outcome of taking `program` from fenced block `blockIndex` of `blockCount`. */
const fromBlock = (program: string, blockCount: number, blockIndex: number) => ({
  ok: true,
  program: `${program}\n`,
  from: "fenced",
  blockCount,
  blockIndex,
});

describe("stripThinking", () => {
  it.each([
    ["<think>plan</think>answer", "answer"],
    ["a<think>x</think>b<think>y</think>c", "abc"],
    ["reasoning without an opener</think>\nanswer", "\nanswer"],
    ["answer first<think>cut off reasoning", "answer first"],
    ["no reasoning", "no reasoning"],
  ])("%j -> %j", (input, expected) => {
    expect(stripThinking(input)).toBe(expected);
  });
});

describe("extractProgram", () => {
  it("takes a single javascript block", () => {
    expect(extractProgram(`Here it is:\n${fence("javascript", ENV)}\nEnjoy.`)).toEqual(
      fromBlock(ENV, 1, 0),
    );
  });

  it("accepts js, JavaScript, mjs and bare fences, and longer fences", () => {
    for (const info of ["js", "JavaScript", "mjs", ""])
      expect(extractProgram(fence(info, ENV))).toMatchObject({ ok: true, program: `${ENV}\n` });
    expect(extractProgram(`\`\`\`\`js\n${ENV}\n\`\`\`\``)).toMatchObject({
      ok: true,
      program: `${ENV}\n`,
    });
  });

  it("takes the last block that defines class Environment, skipping later fragments", () => {
    const draft = "class Environment { /* draft */ }";
    const final = "class Environment { /* final */ }";
    const text = `${fence("js", draft)}\nbetter:\n${fence("javascript", final)}\nusage:\n${fence("js", "new Environment().reset(0);")}`;
    expect(extractProgram(text)).toEqual(fromBlock(final, 3, 1));
  });

  it("ignores blocks in other languages", () => {
    const text = `${fence("python", "class Environment: pass")}\n${fence("js", ENV)}\n${fence("json", '{"class Environment": 1}')}`;
    expect(extractProgram(text)).toMatchObject({
      ok: true,
      program: `${ENV}\n`,
      blockCount: 1,
      blockIndex: 0,
    });
  });

  it("keeps inline backticks and template literals inside a block", () => {
    const body = "class Environment {\n  f() { return `a ${'```'} b`; }\n}";
    expect(extractProgram(fence("js", body))).toMatchObject({ ok: true, program: `${body}\n` });
  });

  it("strips reasoning before looking (code inside <think> does not count)", () => {
    expect(
      extractProgram(
        `<think>${fence("js", "class Environment { /* thought */ }")}</think>${fence("js", ENV)}`,
      ),
    ).toMatchObject({ ok: true, program: `${ENV}\n` });
    expect(extractProgram(`<think>${fence("js", ENV)}</think>Sorry, no code.`)).toMatchObject({
      ok: false,
      code: "E_NO_CODE",
    });
  });

  it("takes an unfenced completion only when the whole of it is code", () => {
    expect(extractProgram(`// A game\n${ENV}\n`)).toEqual({
      ok: true,
      program: `// A game\n${ENV}\n`,
      from: "unfenced",
      blockCount: 0,
      blockIndex: -1,
    });
    expect(extractProgram(`Sure! Here is the program:\n${ENV}`)).toMatchObject({
      ok: false,
      code: "E_NO_CODE",
    });
    expect(extractProgram(`${ENV}\nHope this helps.`)).toMatchObject({
      ok: false,
      code: "E_NO_CODE",
    });
    expect(extractProgram("const x = 1;")).toMatchObject({ ok: false, code: "E_NO_CODE" });
  });

  it("returns coded outcomes when there is no program", () => {
    expect(extractProgram("")).toEqual({
      ok: false,
      code: "E_EMPTY",
      message: "the answer is empty (after removing reasoning)",
      blockCount: 0,
    });
    expect(extractProgram("<think>only thoughts</think>  ")).toMatchObject({
      ok: false,
      code: "E_EMPTY",
    });
    expect(extractProgram("I cannot help with that.")).toMatchObject({
      ok: false,
      code: "E_NO_CODE",
      blockCount: 0,
    });
    expect(extractProgram(fence("js", "function helper() {}"))).toEqual({
      ok: false,
      code: "E_NO_ENVIRONMENT",
      message: "none of the 1 JavaScript block(s) defines class Environment",
      blockCount: 1,
    });
    expect(extractProgram(`\`\`\`javascript\n${ENV.slice(0, 30)}`)).toMatchObject({
      ok: false,
      code: "E_UNTERMINATED",
      blockCount: 0,
    });
  });

  it("prefers a closed block over an unterminated one", () => {
    const text = `${fence("js", ENV)}\nAnd a variant:\n\`\`\`js\nclass Environment { /* cut`;
    expect(extractProgram(text)).toMatchObject({ ok: true, program: `${ENV}\n`, blockIndex: 0 });
  });
});

// Linear-time regressions; the bounds are generous, the regexes replaced took 20-30 s here.
describe("adversarial completions", () => {
  it("strips a megabyte of unclosed <think> tags in linear time", () => {
    const stripped = timed(() => stripThinking(`<think>a</think>keep${"<think>".repeat(149_796)}`));
    expect(stripped.value).toBe("keep");
    expect(stripped.ms).toBeLessThan(2000);
  });

  it("reads a fence line of 128K spaces in linear time", () => {
    const text = `\`\`\`${" ".repeat(131_072)}\`\n${fence("js", ENV)}`;
    const extracted = timed(() => extractProgram(text));
    expect(extracted.value).toEqual(fromBlock(ENV, 1, 0));
    expect(extracted.ms).toBeLessThan(2000);
  });
});
