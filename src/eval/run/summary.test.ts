import { describe, expect, it } from "vitest";
import type { ChatBackend, ChatRequest } from "../../policy/index.js";
import { textCompletion } from "../../../test/fakes/chat-completion.js";
import { ADDED_FUNCTIONS_PROMPT } from "../bfcl/index.js";
import { userSimulatorPrompt, type AceEntry } from "../acebench/index.js";
import {
  aceScores,
  bfclLeaderboard,
  chatUserSimulator,
  fcObservation,
  itemFileName,
  suiteGroup,
  summarizeItems,
  summaryTable,
  USER_SAMPLING,
  type GroupSummary,
  type ItemResult,
  type SampleRecord,
} from "./index.js";

function sample(
  success: boolean,
  metrics: SampleRecord["metrics"] = {},
  failed = false,
): SampleRecord {
  return {
    sample: 0,
    seed: 0,
    return: success ? 1 : 0,
    success,
    turns: 1,
    failure: failed ? "agent: E_POLICY_HTTP: x" : null,
    failureStage: failed ? "agent" : null,
    failureCode: failed ? "E_POLICY_HTTP" : null,
    metrics,
    transcript: {},
  };
}

function item(id: string, group: string, samples: SampleRecord[]): ItemResult {
  return { id, group, samples, accuracy: samples.filter((s) => s.success).length / samples.length };
}

function group(name: string, accuracy: number, items = 1): GroupSummary {
  return { group: name, items, samples: items, correctSamples: 0, failedSamples: 0, accuracy };
}

describe("summaries", () => {
  it("prints the table with 3 decimals, the overall row last", () => {
    const g = summarizeItems("gsm8k", [
      item("1", "gsm8k", [sample(true)]),
      item("2", "gsm8k", [sample(false)]),
      item("3", "gsm8k", [sample(false, {}, true)]),
    ]);
    expect(g).toEqual({
      group: "gsm8k",
      items: 3,
      samples: 3,
      correctSamples: 1,
      failedSamples: 1,
      accuracy: 1 / 3,
    });
    expect(summaryTable([g], { ...g, group: "overall" })).toBe(
      [
        "group     items  samples  accuracy  failed",
        "gsm8k         3        3     0.333       1",
        "overall       3        3     0.333       1",
      ].join("\n"),
    );
  });

  it("names item files by percent-encoding everything but letters, digits, . _ -", () => {
    expect(itemFileName("gsm8k/17")).toBe("gsm8k%2F17.json");
    expect(itemFileName("bbh/navigate/3")).toBe("bbh%2Fnavigate%2F3.json");
    expect(itemFileName("HumanEval/0")).toBe("HumanEval%2F0.json");
    expect(itemFileName("a%2Fb")).toBe("a%252Fb.json");
    expect(itemFileName("zh/é")).toBe("zh%2F%C3%A9.json");
  });

  it("groups BBH items by task, other suites by suite", () => {
    expect(suiteGroup({ suite: "bbh", id: "bbh/navigate/3" })).toBe("bbh/navigate");
    expect(suiteGroup({ suite: "gsm8k", id: "gsm8k/3" })).toBe("gsm8k");
    expect(suiteGroup({ suite: "humaneval", id: "HumanEval/0" })).toBe("humaneval");
  });
});

describe("BFCL aggregation", () => {
  it("overall is the unweighted mean of the four category accuracies", () => {
    const lb = bfclLeaderboard([
      group("base", 0.5, 200),
      group("miss_func", 0.25, 10),
      group("miss_param", 1, 1),
      group("long_context", 0, 50),
    ]);
    expect(lb).toEqual({
      categories: { base: 0.5, miss_func: 0.25, miss_param: 1, long_context: 0 },
      overall: 0.4375,
    });
  });

  it("overall is N/A (null) when a category was not evaluated", () => {
    expect(bfclLeaderboard([group("base", 0.5)])).toEqual({
      categories: { base: 0.5, miss_func: null, miss_param: null, long_context: null },
      overall: null,
    });
  });

  it("shows a holdout turn in FC form: the sentence alone (the documents come as tools)", () => {
    expect(fcObservation(`[{"name": "cd"}]\n${ADDED_FUNCTIONS_PROMPT}`)).toBe(
      ADDED_FUNCTIONS_PROMPT,
    );
    expect(fcObservation("Move the file.")).toBe("Move the file.");
  });
});

describe("ACEBench aggregation and the chat-model user", () => {
  it("per set: end-to-end and process rounded to 3 places; per language the mean of the two sets' end-to-end", () => {
    const items = [
      item("en/agent_multi_turn_0", "en/multi_turn", [
        sample(true, { endToEnd: true, process: 1 }),
      ]),
      item("en/agent_multi_turn_1", "en/multi_turn", [
        sample(false, { endToEnd: false, process: 1 / 3 }),
      ]),
      item("en/agent_multi_turn_2", "en/multi_turn", [
        sample(false, { endToEnd: false, process: 0 }, true),
      ]),
      item("en/agent_multi_step_0", "en/multi_step", [
        sample(true, { endToEnd: true, process: 1 }),
        sample(false, { endToEnd: false, process: 0.5 }),
      ]),
    ];
    expect(aceScores(items, ["en/multi_turn", "en/multi_step", "zh/multi_turn"])).toEqual({
      sets: [
        {
          set: "en/multi_turn",
          endToEndAccuracy: 0.333,
          processAccuracy: 0.444,
          correct: 1,
          total: 3,
        },
        {
          set: "en/multi_step",
          endToEndAccuracy: 0.5,
          processAccuracy: 0.75,
          correct: 1,
          total: 2,
        },
      ],
      // Python: round((0.333 + 0.5) / 2, 3) == 0.416 (0.4165 is stored just below the half).
      languages: [{ lang: "en", agentSummary: 0.416 }],
    });
  });

  it("asks the user model with the simulator prompt, the agent's lines as user messages and its own as assistant messages", async () => {
    const requests: ChatRequest[] = [];
    /** TEST DOUBLE: a chat backend that answers one fixed line. */
    const backend: ChatBackend = {
      model: "user-model",
      complete: async (request) => {
        requests.push(request);
        return textCompletion("finish conversation");
      },
    };
    const entry = { lang: "en", question: "You are Eve; order a pizza." } as AceEntry;
    const user = chatUserSimulator(backend, entry);
    const reply = await user.reply([
      { role: "agent", content: "Is there anything you need help with today?" },
      { role: "user", content: "I want a pizza." },
      { role: "agent", content: "agent:Which one?" },
    ]);
    expect(reply).toBe("finish conversation");
    expect(requests[0]!.messages).toEqual([
      { role: "system", content: userSimulatorPrompt(entry) },
      { role: "user", content: "Is there anything you need help with today?" },
      { role: "assistant", content: "I want a pizza." },
      { role: "user", content: "Which one?" },
    ]);
    expect(requests[0]!.sampling).toEqual(USER_SAMPLING);
  });
});
