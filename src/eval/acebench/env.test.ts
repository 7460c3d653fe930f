import { describe, expect, it } from "vitest";
import { checkEnv, makeAction, type Action, type Env } from "../../env/index.js";
import { codeOf } from "../../../test/assert.js";
import { AceBenchEnv, NOT_A_CALL_REPLY } from "./env.js";
import { loadAceEntries } from "./data.js";
import { acebenchDir } from "./testing/bench-dir.js";
import { ScriptedUser } from "./testing/scripted-user.js";
import { AGENT_GREETING } from "./user.js";

const dir = acebenchDir();
const enStep = loadAceEntries(dir, "en", "multi_step");
const enTurn = loadAceEntries(dir, "en", "multi_turn");
const zhTurn = loadAceEntries(dir, "zh", "multi_turn");

const say = (text: string): Action => makeAction(text);
const tool = (name: string, args: Record<string, unknown>, id = "c1"): Action => ({
  text: "",
  answer: null,
  toolCalls: [{ id, name, arguments: args as never }],
});

/** Plays the oracle until the episode ends; returns the rewards. */
async function playOracle(env: Env): Promise<{ rewards: number[]; ended: string }> {
  await env.reset(0);
  const rewards: number[] = [];
  for (let i = 0; i < env.meta.maxTurns; i++) {
    const r = await env.step(await env.solve());
    rewards.push(r.reward);
    if (r.terminated || r.truncated)
      return { rewards, ended: r.terminated ? "terminated" : "truncated" };
  }
  return { rewards, ended: "runner" };
}

describe("multi-step entries", () => {
  it("describe themselves with the entry's tools as OpenAI schemas", () => {
    const env = new AceBenchEnv(enStep[2]!);
    expect(env.meta.name).toBe("acebench-en-agent-multi-step-2");
    expect(env.meta.maxTurns).toBe(20);
    const order = env.meta.tools.find((t) => t.function.name === "add_food_delivery_order");
    expect(order?.function.parameters).toMatchObject({
      type: "object",
      required: ["username", "merchant_name", "items"],
      properties: {
        items: {
          type: "array",
          items: { type: "object", properties: { quantity: { type: "integer" } } },
        },
      },
    });
  });

  it("the oracle reaches the ground truth and the last step pays 1", async () => {
    const env = new AceBenchEnv(enStep[2]!); // wifi, login Jack, order
    expect(await playOracle(env)).toEqual({ rewards: [0, 0, 0, 1], ended: "terminated" });
    expect(env.score()).toMatchObject({ endToEnd: true, process: 1 });
  });

  it("the oracle of a defective entry cannot reach it (nothing is repaired)", async () => {
    const env = new AceBenchEnv(enStep[0]!); // merchant_name='Domino's' is not Python
    const { rewards } = await playOracle(env);
    expect(rewards.at(-1)).toBe(0);
  });

  it("answers tool calls with tool results and scores the final state", async () => {
    const env = new AceBenchEnv(enStep[3]!); // Wi-Fi already on: login Jack, order pork belly
    const first = await env.reset(7);
    expect(first.observation).toContain("Task:\n");
    expect(first.observation).toContain(enStep[3]!.question);
    const login = await env.step(
      tool("login_food_platform", { username: "Jack", password: "password654" }),
    );
    expect(login).toMatchObject({
      observation: "",
      reward: 0,
      terminated: false,
      toolResults: [
        {
          id: "c1",
          content: "{'status': True, 'message': 'User Jack has successfully logged in!'}",
        },
      ],
    });
    const order = await env.step(
      tool(
        "add_food_delivery_order",
        {
          username: "Jack",
          merchant_name: "Jiutian BBQ",
          items: [{ product: "Grilled Pork Belly", quantity: 1 }],
        },
        "c2",
      ),
    );
    expect(order.toolResults).toEqual([
      {
        id: "c2",
        content:
          "{'status': True, 'message': 'Food delivery order successfully placed with Jiutian BBQ. Total amount: 78.0 yuan'}",
      },
    ]);
    const done = await env.step(say("finish conversation"));
    expect(done).toMatchObject({
      reward: 1,
      terminated: true,
      truncated: false,
      info: { endToEnd: true, process: 1 },
    });
    expect(env.processMessages()).toEqual([
      "[login_food_platform(username='Jack', password='password654')]",
      "[add_food_delivery_order(username='Jack', merchant_name='Jiutian BBQ', items=[{'product': 'Grilled Pork Belly', 'quantity': 1}])]",
    ]);
  });

  it("sends every message to execution: text that is not a call gets upstream's fixed reply", async () => {
    const env = new AceBenchEnv(enStep[3]!);
    await env.reset(0);
    const r = await env.step(say("finish conversation")); // the first message cannot end the dialogue
    expect(r).toMatchObject({ observation: NOT_A_CALL_REPLY, terminated: false });
    const text = await env.step(say("[check_balance(user_name='Jack')]"));
    expect(text.observation).toBe("[120.0]");
    expect(env.processMessages()).toEqual([
      "finish conversation",
      "[check_balance(user_name='Jack')]",
    ]);
  });

  it("ends itself when the message budget runs out, scoring the state reached", async () => {
    const env = new AceBenchEnv(enStep[3]!, { maxMessages: 4 });
    await env.reset(0);
    expect((await env.step(say("[check_balance(user_name='Jack')]"))).truncated).toBe(false);
    const last = await env.step(say("[check_balance(user_name='Jack')]"));
    expect(last).toMatchObject({
      reward: 0,
      terminated: false,
      truncated: true,
      info: { endedBy: "truncated", endToEnd: false },
    });
    await expect(env.step(say("x"))).rejects.toMatchObject({ code: "E_ENV_CONTRACT" });
  });

  it("resets to the initial state", async () => {
    const env = new AceBenchEnv(enStep[3]!);
    await env.reset(0);
    await env.step(tool("login_food_platform", { username: "Jack", password: "password654" }));
    await env.reset(0);
    const again = await env.step(
      tool("login_food_platform", { username: "Jack", password: "password654" }),
    );
    expect(again.toolResults?.[0]?.content).toContain("successfully logged in");
  });

  it("passes the environment validator", async () => {
    const report = await checkEnv(async () => new AceBenchEnv(enStep[2]!), {
      seeds: [0, 1],
      trivialSeeds: [0, 1],
    });
    expect(report.failures).toEqual([]);
  });
});

describe("multi-turn entries with a simulated user", () => {
  it("need a user", () => {
    expect(codeOf(() => new AceBenchEnv(enTurn[0]!))).toBe("E_CONFIG");
  });

  it("open with the user's answer to the greeting, route text to the user and calls to execution", async () => {
    const user = new ScriptedUser([
      "Hi, I'm Grace. Please free some space and message Frank.",
      "Delete the earliest one.",
      "finish conversation",
    ]);
    const env = new AceBenchEnv(enTurn[0]!, { user });
    const first = await env.reset(0);
    expect(
      first.observation.endsWith("Hi, I'm Grace. Please free some space and message Frank."),
    ).toBe(true);
    expect(user.seen[0]).toEqual([{ role: "agent", content: AGENT_GREETING.en }]);

    const asked = await env.step(say("Which message should I delete?"));
    expect(asked).toMatchObject({
      observation: "Delete the earliest one.",
      reward: 0,
      terminated: false,
      info: { recipient: "user" },
    });
    expect(user.seen[1]?.at(-1)).toEqual({
      role: "agent",
      content: "Which message should I delete?",
    });

    for (const call of [
      "[turn_on_wifi()]",
      "[get_earliest_message_id()]",
      "[delete_message(message_id=3)]",
    ]) {
      expect((await env.step(say(call))).info).toMatchObject({ recipient: "execution" });
    }
    const sent = await env.step(
      say(
        "[send_message(sender_name='Grace', receiver_name='Frank', message='Are you free tomorrow to have lunch with me?')]",
      ),
    );
    expect(sent.observation).toBe(
      "[{'status': True, 'message': 'Message successfully sent to Frank.'}]",
    );
    const bye = await env.step(say("Done, anything else?"));
    expect(bye).toMatchObject({
      observation: "finish conversation",
      reward: 1,
      terminated: true,
      info: { endToEnd: true, process: 1 },
    });
  });

  it("show an aborted message as upstream does: its literal error text, character by character", async () => {
    const env = new AceBenchEnv(enTurn[0]!, { user: new ScriptedUser([]) });
    await env.reset(0);
    const r = await env.step(say("[send_message(sender_name='Grace')]"));
    expect(r.observation.startsWith("['E', 'r', 'r', 'o', 'r', ' ', 'd'")).toBe(true);
    expect(r.info.abortedBy).toBe(
      "MessageApi.send_message() missing 2 required positional arguments: 'receiver_name' and 'message'",
    );
    const viaTool = await env.step(tool("send_message", { sender_name: "Grace" }));
    expect(viaTool.toolResults).toEqual([
      { id: "c1", content: "Error during execution: {str(e)}" },
    ]);
  });

  it("a Chinese travel entry is solved by its oracle and then the user ends it", async () => {
    const env = new AceBenchEnv(zhTurn[20]!, {
      user: new ScriptedUser(["我想订机票。", "finish conversation"]),
    });
    const { rewards, ended } = await playOracle(env);
    expect(ended).toBe("terminated");
    expect(rewards.at(-1)).toBe(1);
  });
});
