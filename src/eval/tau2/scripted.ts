/**
 * @module eval/tau2/scripted
 * Scripted players for tau2-bench, served through SPADE's OpenAI-compatible shim: the oracle agent
 * (replays a task's ground-truth actions and says what the task says must be communicated), the
 * idle agent (does nothing), and a compliant scripted user (performs the device actions the agent
 * asks for, then stops). They are baselines and test doubles, labelled as such, never a default.
 */
import type { JsonObject } from "../../env/index.js";

/** One expected action of a task, as tau2 stores it. */
export interface Tau2Action {
  requestor: "assistant" | "user";
  name: string;
  arguments: JsonObject;
}

/** What a scripted agent may know of a task: its expected actions and the facts to communicate. */
export interface Tau2GroundTruth {
  id: string;
  actions: Tau2Action[];
  communicateInfo: string[];
}

/** An OpenAI chat message as the harness sends it (through litellm). */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content?: string | null;
  tool_calls?: Array<{
    id: string;
    type?: string;
    function: { name: string; arguments: string };
  }> | null;
  tool_call_id?: string;
}

/** A scripted turn: text, or one tool call. */
export type ScriptedTurn =
  | { content: string }
  | { toolCall: { name: string; arguments: JsonObject } };

/** The marker before the JSON of a device action the oracle asks the user to perform. */
export const DEVICE_REQUEST_MARKER = "Please perform this action on your device:";

/** What the oracle says after its last step; the scripted user stops on any text without a request. */
export const ORACLE_CLOSING =
  "Your request has been handled. Is there anything else I can help you with?";

/** tau2's user-simulator stop token. */
export const USER_STOP = "###STOP###";

function toolCallsOf(messages: readonly ChatMessage[], role: "assistant"): number {
  return messages
    .filter((m) => m.role === role && (m.tool_calls?.length ?? 0) > 0)
    .reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
}

function lastText(messages: readonly ChatMessage[], role: ChatMessage["role"]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === role && typeof m.content === "string" && m.content.length > 0) return m.content;
  }
  return null;
}

/**
 * The oracle agent's next turn, from the conversation alone (no state kept between calls).
 * It walks the expected actions in order: its own actions are tool calls (the k-th call it makes
 * is the k-th assistant action); before an assistant action that follows user actions, and after
 * the last action when user actions remain, it asks the user, in one message, to perform them
 * (a JSON line per action). Then it closes, stating every fact in `communicateInfo`.
 */
export function oracleAgentTurn(
  truth: Tau2GroundTruth,
  messages: readonly ChatMessage[],
): ScriptedTurn {
  const done = toolCallsOf(messages, "assistant");
  const actions = truth.actions;
  // Index of the next assistant action not yet called, and the user actions just before it.
  let seen = 0;
  let next = actions.length;
  for (let i = 0; i < actions.length; i++) {
    if (actions[i]!.requestor !== "assistant") continue;
    if (seen === done) {
      next = i;
      break;
    }
    seen += 1;
  }
  let prev = -1;
  for (let i = next - 1; i >= 0; i--) {
    if (actions[i]!.requestor === "assistant") {
      prev = i;
      break;
    }
  }
  const pendingUser = actions.slice(prev + 1, next).filter((a) => a.requestor === "user");
  if (pendingUser.length > 0) {
    const request = deviceRequest(next, pendingUser);
    // Asked already and the user has answered since: go on.
    const asked = messages.findIndex((m) => m.role === "assistant" && m.content === request);
    const answered = asked >= 0 && messages.slice(asked + 1).some((m) => m.role === "user");
    if (!answered) return { content: request };
  }
  if (next < actions.length)
    return { toolCall: { name: actions[next]!.name, arguments: actions[next]!.arguments } };
  const facts =
    truth.communicateInfo.length > 0
      ? ` For your information: ${truth.communicateInfo.join("; ")}.`
      : "";
  return { content: `${ORACLE_CLOSING}${facts}` };
}

/** The request text for the user actions before expected action `step` (one JSON line each). */
export function deviceRequest(step: number, actions: readonly Tau2Action[]): string {
  const lines = actions.map(
    (a) => `${DEVICE_REQUEST_MARKER} ${JSON.stringify({ name: a.name, arguments: a.arguments })}`,
  );
  return [`(step ${step})`, ...lines].join("\n");
}

/** The idle agent: answers every turn with the same refusal and never calls a tool. */
export function idleAgentTurn(): ScriptedTurn {
  return { content: "I am sorry, I cannot help with that." };
}

/** The device actions requested in an agent message (the JSON after each marker line). */
export function parseDeviceRequests(text: string): Array<{ name: string; arguments: JsonObject }> {
  const out: Array<{ name: string; arguments: JsonObject }> = [];
  for (const line of text.split("\n")) {
    const at = line.indexOf(DEVICE_REQUEST_MARKER);
    if (at < 0) continue;
    try {
      const value = JSON.parse(line.slice(at + DEVICE_REQUEST_MARKER.length)) as {
        name?: unknown;
        arguments?: unknown;
      };
      if (typeof value.name === "string")
        out.push({ name: value.name, arguments: (value.arguments ?? {}) as JsonObject });
    } catch {
      // Not a request line after all: a scripted user ignores what it cannot parse.
    }
  }
  return out;
}

/**
 * The compliant scripted user's next turn. In tau2 the user simulator sees the conversation with
 * roles flipped: the agent's messages arrive as `user`, its own as `assistant`. It opens with a
 * fixed greeting; when the agent's latest message asks for device actions it performs them one
 * tool call at a time, then says it is done; any other agent message ends the conversation.
 */
export function scriptedUserTurn(messages: readonly ChatMessage[]): ScriptedTurn {
  const own = messages.filter((m) => m.role === "assistant");
  if (own.length === 0) return { content: "Hi, I need help with my request." };
  // The agent's latest text, and the calls this user made after it.
  let at = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && typeof m.content === "string" && m.content.length > 0) {
      at = i;
      break;
    }
  }
  const agentText = at >= 0 ? (messages[at]!.content as string) : "";
  const requests = parseDeviceRequests(agentText);
  if (requests.length === 0) return { content: USER_STOP };
  const made = toolCallsOf(messages.slice(at + 1), "assistant");
  if (made < requests.length) return { toolCall: requests[made]! };
  return { content: "Done, I performed those actions." };
}

/** The last text of a role, exported for tests that check what a scripted player said. */
export { lastText };
