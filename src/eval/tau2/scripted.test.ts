// The scripted tau2 players: the oracle's walk through a task's actions, the compliant user, idle.
import { describe, expect, it } from "vitest";
import {
  deviceRequest,
  idleAgentTurn,
  oracleAgentTurn,
  parseDeviceRequests,
  scriptedUserTurn,
  ORACLE_CLOSING,
  USER_STOP,
  type ChatMessage,
  type Tau2GroundTruth,
} from "./index.js";

const call = (name: string, args: object, id = "c"): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const tool = (content: string): ChatMessage => ({ role: "tool", content, tool_call_id: "c" });
const start: ChatMessage[] = [
  { role: "system", content: "policy" },
  { role: "assistant", content: "Hi! How can I help you today?" },
  { role: "user", content: "Hi, I need help with my request." },
];

describe("oracleAgentTurn", () => {
  const retail: Tau2GroundTruth = {
    id: "7",
    actions: [
      { requestor: "assistant", name: "find_user", arguments: { zip: "12345" } },
      {
        requestor: "assistant",
        name: "cancel_order",
        arguments: { order_id: "#W1", reason: "no longer needed" },
      },
    ],
    communicateInfo: ["1234.56", "two items"],
  };

  it("calls the assistant actions in order, then closes stating every fact to communicate", () => {
    expect(oracleAgentTurn(retail, start)).toEqual({
      toolCall: { name: "find_user", arguments: { zip: "12345" } },
    });
    const after1 = [...start, call("find_user", { zip: "12345" }), tool("u1")];
    expect(oracleAgentTurn(retail, after1)).toEqual({
      toolCall: {
        name: "cancel_order",
        arguments: { order_id: "#W1", reason: "no longer needed" },
      },
    });
    const after2 = [...after1, call("cancel_order", {}), tool("ok")];
    expect(oracleAgentTurn(retail, after2)).toEqual({
      content: `${ORACLE_CLOSING} For your information: 1234.56; two items.`,
    });
  });

  it("asks the user for the user actions before and after its own, once each, and waits for the answer", () => {
    const telecom: Tau2GroundTruth = {
      id: "t",
      actions: [
        { requestor: "user", name: "toggle_airplane_mode", arguments: {} },
        { requestor: "assistant", name: "enable_roaming", arguments: { customer_id: "C1" } },
        { requestor: "user", name: "toggle_roaming", arguments: {} },
        { requestor: "user", name: "run_speed_test", arguments: {} },
      ],
      communicateInfo: [],
    };
    const ask1 = deviceRequest(1, [telecom.actions[0]!]);
    expect(ask1).toBe(
      '(step 1)\nPlease perform this action on your device: {"name":"toggle_airplane_mode","arguments":{}}',
    );
    expect(oracleAgentTurn(telecom, start)).toEqual({ content: ask1 });
    // Asked but not answered yet (the last message is its own): it asks again rather than skipping ahead.
    expect(oracleAgentTurn(telecom, [...start, { role: "assistant", content: ask1 }])).toEqual({
      content: ask1,
    });
    const answered = [
      ...start,
      { role: "assistant", content: ask1 } as ChatMessage,
      { role: "user", content: "Done." } as ChatMessage,
    ];
    expect(oracleAgentTurn(telecom, answered)).toEqual({
      toolCall: { name: "enable_roaming", arguments: { customer_id: "C1" } },
    });
    const afterCall = [...answered, call("enable_roaming", { customer_id: "C1" }), tool("ok")];
    const ask2 = deviceRequest(4, [telecom.actions[2]!, telecom.actions[3]!]);
    expect(oracleAgentTurn(telecom, afterCall)).toEqual({ content: ask2 });
    const end = [
      ...afterCall,
      { role: "assistant", content: ask2 } as ChatMessage,
      { role: "user", content: "Done." } as ChatMessage,
    ];
    expect(oracleAgentTurn(telecom, end)).toEqual({ content: ORACLE_CLOSING });
  });

  it("closes at once on a task without expected actions", () => {
    expect(oracleAgentTurn({ id: "0", actions: [], communicateInfo: [] }, start)).toEqual({
      content: ORACLE_CLOSING,
    });
  });
});

describe("scriptedUserTurn (roles as the user simulator sees them: the agent is `user`)", () => {
  const greeting: ChatMessage[] = [
    { role: "system", content: "scenario" },
    { role: "user", content: "Hi! How can I help you today?" },
  ];

  it("opens, performs each requested device action in turn, reports back, and stops on anything else", () => {
    expect(scriptedUserTurn(greeting)).toEqual({ content: "Hi, I need help with my request." });
    const request = deviceRequest(3, [
      { requestor: "user", name: "toggle_roaming", arguments: {} },
      {
        requestor: "user",
        name: "set_network_mode_preference",
        arguments: { mode: "4g_5g_preferred" },
      },
    ]);
    const asked: ChatMessage[] = [
      ...greeting,
      { role: "assistant", content: "Hi, I need help with my request." },
      { role: "user", content: request },
    ];
    expect(scriptedUserTurn(asked)).toEqual({
      toolCall: { name: "toggle_roaming", arguments: {} },
    });
    const one = [...asked, call("toggle_roaming", {}), tool("Roaming ON")];
    expect(scriptedUserTurn(one)).toEqual({
      toolCall: { name: "set_network_mode_preference", arguments: { mode: "4g_5g_preferred" } },
    });
    const both = [
      ...one,
      call("set_network_mode_preference", { mode: "4g_5g_preferred" }),
      tool("ok"),
    ];
    expect(scriptedUserTurn(both)).toEqual({ content: "Done, I performed those actions." });
    const closing = [
      ...both,
      { role: "assistant", content: "Done, I performed those actions." } as ChatMessage,
      { role: "user", content: ORACLE_CLOSING } as ChatMessage,
    ];
    expect(scriptedUserTurn(closing)).toEqual({ content: USER_STOP });
  });

  it("reads only well-formed request lines", () => {
    expect(
      parseDeviceRequests(
        'Please perform this action on your device: {"name":"a","arguments":{"x":1}}\nPlease perform this action on your device: {broken\nhello',
      ),
    ).toEqual([{ name: "a", arguments: { x: 1 } }]);
  });
});

describe("idleAgentTurn", () => {
  it("never calls a tool", () => {
    expect(idleAgentTurn()).toEqual({ content: "I am sorry, I cannot help with that." });
  });
});
