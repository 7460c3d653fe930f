// The single-turn ACEBench normal/special Env: upstream's prompts (compared with upstream's own
// prompt_en.py `str.format` when SPADE_ACEBENCH_SRC is set), scoring of the one reply, contract.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeAction } from "../../env/index.js";
import { NORMAL_CATEGORIES, SPECIAL_CATEGORIES, goldOutput, loadNsEntries } from "./categories.js";
import { AceNsEnv, nsSystemPrompt, nsUserPrompt } from "./ns-env.js";
import { acebenchDir } from "./testing/bench-dir.js";
import { skipOptional } from "../../../test/missing.js";
import { upstreamMissing, upstreamTree, VENV_PYTHON } from "./testing/upstream.js";

const dir = acebenchDir();
const first = (c: (typeof NORMAL_CATEGORIES)[number] | (typeof SPECIAL_CATEGORIES)[number]) =>
  loadNsEntries(dir, c)[0]!;

describe("AceNsEnv", () => {
  it("shows upstream's user message and scores the reply with upstream's checker", async () => {
    const e = first("normal_atom_bool");
    const env = new AceNsEnv(e);
    const reset = await env.reset(0);
    expect(reset.observation).toBe(`Conversation history 1..t:\n${e.question}`);
    const good = await env.step(makeAction(goldOutput(e)));
    expect(good).toMatchObject({
      reward: 1,
      terminated: true,
      info: { id: "normal_atom_bool_0", valid: true, errorType: "" },
    });
    await expect(env.step(makeAction("[]"))).rejects.toMatchObject({ code: "E_ENV_CONTRACT" });
    await env.reset(1);
    expect(await env.step(makeAction("[]"))).toMatchObject({
      reward: 0,
      info: { valid: false, errorType: "wrong functions number" },
    });
    await env.reset(2);
    const thought = await env.step(makeAction(`<think>maybe [] or</think> ${goldOutput(e)}\n`));
    expect(thought).toMatchObject({ reward: 1, info: { valid: true } });
    await env.close();
    await expect(env.reset(0)).rejects.toMatchObject({ code: "E_ENV_CONTRACT" });
  });

  it("picks the normal, preference or special system prompt, with the profile or the time", () => {
    const pref = first("normal_preference");
    expect(nsSystemPrompt(pref)).toContain(`Character Profile:\n${pref.profile}\n`);
    expect(nsSystemPrompt(first("special_irrelevant"))).toContain(
      "Due to the limitations of the function, I cannot solve this problem.",
    );
    const normal = first("normal_atom_enum");
    expect(
      nsSystemPrompt(normal).startsWith(
        'You are an AI assistant with the role name "assistant." Based on',
      ),
    ).toBe(true);
    expect(nsSystemPrompt(normal)).toContain(`\n\n${normal.time}\n\nRole Descriptions:`);
    expect(nsSystemPrompt(normal)).toContain(`API Specifications:\n[{'name': '`);
  });
});

const tree = upstreamTree(["model_inference/prompt_en.py"]);
const python = VENV_PYTHON;

describe.skipIf(skipOptional(upstreamMissing(tree)))(
  "prompts equal upstream's prompt_en.py format (SPADE_ACEBENCH_SRC)",
  () => {
    it("for every normal and special entry", () => {
      // Our own few lines of Python: upstream's single_turn_inference choice of prompt and format.
      const script = [
        "import json, sys",
        "sys.path.insert(0, sys.argv[1])",
        "from model_inference.prompt_en import *",
        "out = []",
        "for cat in sys.argv[3:]:",
        "    for line in open(f'{sys.argv[2]}/data_{cat}.json', encoding='utf-8'):",
        "        if not line.strip(): continue",
        "        t = json.loads(line); f = t['function']",
        "        if 'special' in cat: s = SYSTEM_PROMPT_FOR_SPECIAL_DATA_EN.format(time=t.get('time', ''), function=f)",
        "        elif 'preference' in cat: s = SYSTEM_PROMPT_FOR_PREFERENCE_DATA_EN.format(profile=t.get('profile', ''), function=f)",
        "        else: s = SYSTEM_PROMPT_FOR_NORMAL_DATA_EN.format(time=t.get('time', ''), function=f)",
        "        out.append([s, USER_PROMPT_EN.format(question=t['question'])])",
        "json.dump(out, sys.stdout)",
      ].join("\n");
      const cats = [...NORMAL_CATEGORIES, ...SPECIAL_CATEGORIES];
      const theirs = JSON.parse(
        execFileSync(python, ["-c", script, tree!, join(dir, "data_all", "data_en"), ...cats], {
          encoding: "utf8",
          maxBuffer: 256 << 20,
        }),
      ) as Array<[string, string]>;
      const ours = cats.flatMap((c) =>
        loadNsEntries(dir, c).map((e) => [nsSystemPrompt(e), nsUserPrompt(e)]),
      );
      expect(ours.length).toBe(973);
      const differing = ours
        .map((o, i) => (o[0] === theirs[i]![0] && o[1] === theirs[i]![1] ? null : i))
        .filter((i) => i !== null);
      expect(differing).toEqual([]);
    });
  },
);
